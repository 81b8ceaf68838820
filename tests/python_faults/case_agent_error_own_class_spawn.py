"""An exception class of the user's, raised in a spawned worker, arrives
as that class.

Expect: MarketClosed: closed at 120
"""
import faultcase
import pams_cpp


class MarketClosed(Exception):
    pass


class Failing(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() == 120:
            raise MarketClosed("closed at 120")
        return super().submit_orders(markets)


if __name__ == "__main__":
    settings = faultcase.config(agent_class="Failing", start_method="spawn")
    try:
        faultcase.runner("MultiProcessAgentParallelRunner", settings, [Failing]).main()
    except MarketClosed as e:
        assert type(e) is MarketClosed
        raise
