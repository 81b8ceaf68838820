"""bench/gpu_check.py, the GPU check, as a dry run on the CPU
(framework_suite.gpu_check_dry_run)."""
import framework_suite as suite


def test_the_gpu_check_runs_here_as_a_dry_run():
    suite.gpu_check_dry_run("tf")
