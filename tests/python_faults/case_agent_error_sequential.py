"""A ValueError raised by a Python agent in SequentialRunner arrives as that
ValueError (`except ValueError` catches it), with a note naming the
agent and the step.

Expect: ValueError: no price today
"""
import faultcase

if __name__ == "__main__":
    faultcase.agent_error("SequentialRunner")
