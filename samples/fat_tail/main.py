"""The fat_tail sample of PAMS's development branch (plhamJ's FatTail), on
pams_cpp: 1,000 FCN agents without the chartist component in one market; the
returns show fat tails and volatility clustering (``pams stats`` on a
``--steps-csv`` file, or pams_cpp.utils.stylized_facts). config.json is
short; plhamJ runs 60,000 steps and leaves out the first 10,000. From the
repository's root::

    python -m samples.fat_tail.main --config samples/fat_tail/config.json --seed 1
"""
from samples._main import run_sample


def main() -> None:
    """Runs the sample (see the module)."""
    run_sample()


if __name__ == "__main__":
    main()
