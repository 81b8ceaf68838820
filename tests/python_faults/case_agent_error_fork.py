"""A ValueError raised by a Python agent in a worker process ("fork") arrives as that
ValueError (`except ValueError` catches it), with a note naming the
agent and the step, and the worker's traceback as its cause.

Expect: ValueError: no price today
"""
import faultcase

if __name__ == "__main__":
    faultcase.agent_error("MultiProcessAgentParallelRunner", "fork")
