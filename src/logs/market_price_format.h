// How the loggers print a market price: as a Python int when the price came
// from an execution in a market with an integer tick size, else as a
// Python float. Private to the library.

#ifndef PAMS_SRC_LOGS_MARKET_PRICE_FORMAT_H_
#define PAMS_SRC_LOGS_MARKET_PRICE_FORMAT_H_

#include <string>

#include "support/python_format.h"

namespace pams {

class Market;

// Appends the market's current market price to *out.
void AppendMarketPrice(const Market& market, PythonFloatCache* cache,
                       std::string* out);

}  // namespace pams

#endif  // PAMS_SRC_LOGS_MARKET_PRICE_FORMAT_H_
