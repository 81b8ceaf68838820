"""Ctrl-C (SIGINT to the process group) while a worker process ("fork") inside a call that does not return (time.sleep) is killed:
KeyboardInterrupt within 0.1 s of the signal, and nothing left behind
but what cannot be stopped.

Expect: KeyboardInterrupt: 
Within: 0.1
Serial: yes
"""
import faultcase

if __name__ == "__main__":
    faultcase.ctrl_c_stuck("MultiProcessAgentParallelRunner", 1.0, start_method="fork")
