"""Ctrl-C (SIGINT to the process group) while a thread inside a call that does not return is left behind with a warning:
KeyboardInterrupt within 0.1 s of the signal, and nothing left behind
but what cannot be stopped.

Expect: KeyboardInterrupt: 
Within: 0.1
Serial: yes
"""
import faultcase

if __name__ == "__main__":
    faultcase.ctrl_c_stuck("MultiThreadAgentParallelRunner", 1.0)
