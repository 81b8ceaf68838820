"""Ctrl-C (SIGINT to the process group) while a call that does not return
(time.sleep) runs in the main process of a process runner, which runs
rounds of one call and the rounds while its workers start
(runRoundsWhileWorkersStart true): KeyboardInterrupt within 0.1 s
of the signal, as in SequentialRunner, and no other call starts.

Expect: KeyboardInterrupt: 
Within: 0.1
Serial: yes
"""
import faultcase

if __name__ == "__main__":
    faultcase.ctrl_c_stuck("MultiProcessAgentParallelRunner", 2.5, start_method="spawn",
                           runRoundsWhileWorkersStart=True)
