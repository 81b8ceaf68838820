"""PAMS's sample configs (samples/), relative to the repository root: the
list the parallel runner tests and the speed comparison both go through."""

SAMPLES = [
    "samples/CI2002/config.json",
    "samples/fat_finger/config.json",
    "samples/market_share/config.json",
    "samples/market_share/config-mm.json",
    "samples/price_limit/config.json",
    "samples/shock_transfer/config.json",
    "samples/test/config.json",
    "samples/trading_halt/config.json",
    "samples/user_class/config.json",
]
