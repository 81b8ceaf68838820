// Fundamentals: PAMS's fundamentals.py, with numpy/scipy's float pipeline
// reproduced step by step (README.md, "How bit-identical results are
// obtained"): covariance by broadcasting, reference LAPACK's recursive
// Cholesky, reference BLAS's dot product, a running cumsum, and libm's exp.

#include "pams/market/fundamentals.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "pams/errors.h"

namespace pams {

namespace {

// dpotrf2('L') on the n x n block at a (row-major with leading dimension
// ld). Returns false when the block is not positive definite.
bool Potrf2Lower(double* a, int n, int ld) {
  if (n == 1) {
    if (!(a[0] > 0.0)) return false;  // also catches NaN
    a[0] = std::sqrt(a[0]);
    return true;
  }
  const int n1 = n / 2;
  const int n2 = n - n1;
  if (!Potrf2Lower(a, n1, ld)) return false;
  double* a21 = a + static_cast<ptrdiff_t>(n1) * ld;  // rows n1.., cols 0..n1-1
  // dtrsm('R', 'L', 'T', 'N'): A21 = A21 * inv(L11)^T, column by column.
  for (int k = 0; k < n1; ++k) {
    const double t = 1.0 / a[static_cast<ptrdiff_t>(k) * ld + k];
    for (int i = 0; i < n2; ++i) a21[static_cast<ptrdiff_t>(i) * ld + k] *= t;
    for (int j = k + 1; j < n1; ++j) {
      const double c = a[static_cast<ptrdiff_t>(j) * ld + k];
      if (c != 0.0) {
        for (int i = 0; i < n2; ++i) {
          double& b = a21[static_cast<ptrdiff_t>(i) * ld + j];
          const double prod = c * a21[static_cast<ptrdiff_t>(i) * ld + k];
          b = b - prod;
        }
      }
    }
  }
  // dsyrk('L', 'N', alpha = -1, beta = 1): A22 -= A21 * A21^T, lower part.
  double* a22 = a21 + n1;
  for (int j = 0; j < n2; ++j) {
    for (int l = 0; l < n1; ++l) {
      const double ajl = a21[static_cast<ptrdiff_t>(j) * ld + l];
      if (ajl != 0.0) {
        const double t = -1.0 * ajl;
        for (int i = j; i < n2; ++i) {
          double& c = a22[static_cast<ptrdiff_t>(i) * ld + j];
          const double prod = t * a21[static_cast<ptrdiff_t>(i) * ld + l];
          c = c + prod;
        }
      }
    }
  }
  return Potrf2Lower(a22, n2, ld);
}

}  // namespace

bool CholeskyLower(std::span<double> a, int n) {
  if (n == 0) return true;
  if (!Potrf2Lower(a.data(), n, n)) return false;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) a[static_cast<size_t>(i) * n + j] = 0.0;
  }
  return true;
}

Fundamentals::Fundamentals(Random prng)
    : prng_(std::move(prng)),
      np_prng_(static_cast<uint64_t>(prng_.randint(0, int64_t{1} << 31))) {}

Fundamentals::Path& Fundamentals::path(int market_id) {
  auto it = paths_.find(market_id);
  if (it == paths_.end()) {
    throw SimulationError("market " + std::to_string(market_id) +
                          " has no fundamental price path");
  }
  return it->second;
}

const Fundamentals::Path& Fundamentals::path(int market_id) const {
  return const_cast<Fundamentals*>(this)->path(market_id);
}

bool Fundamentals::has_market(int market_id) const {
  return paths_.contains(market_id);
}

double Fundamentals::volatility(int market_id) const {
  return path(market_id).volatility;
}

double Fundamentals::drift(int market_id) const {
  return path(market_id).drift;
}

void Fundamentals::add_market(int market_id, double initial, double drift,
                              double volatility, int64_t start_at) {
  if (market_id < 0) throw SimulationError("negative market id");
  if (has_market(market_id)) {
    throw SimulationError("market " + std::to_string(market_id) +
                          " is already registered in the fundamentals");
  }
  if (!(volatility >= 0.0)) {
    throw SimulationError("fundamental volatility must be non-negative");
  }
  if (!(initial > 0.0)) {
    throw SimulationError("initial fundamental price must be positive");
  }
  if (start_at < 0) throw SimulationError("start_at must be non-negative");
  Path& p = paths_[market_id];
  p.drift = drift;
  p.volatility = volatility;
  p.initial = initial;
  p.start_at = start_at;
  p.prices.assign(static_cast<size_t>(start_at + 1), initial);
  market_ids_.push_back(market_id);
  generated_until_ = std::min(start_at, generated_until_);
}

void Fundamentals::remove_market(int market_id) {
  path(market_id);  // throws for a market not added
  paths_.erase(market_id);
  market_ids_.erase(std::find(market_ids_.begin(), market_ids_.end(), market_id));
}

void Fundamentals::set_correlation(int market_id1, int market_id2, double corr,
                                   int64_t time) {
  if (!(-1.0 < corr && corr < 1.0)) {
    throw SimulationError("correlation must be in (-1.0, 1.0)");
  }
  if (market_id1 == market_id2) {
    throw SimulationError("a correlation needs two different markets");
  }
  for (auto& [a, b, c] : correlations_) {
    if ((a == market_id1 && b == market_id2) ||
        (a == market_id2 && b == market_id1)) {
      c = corr;
      generated_until_ = time;
      return;
    }
  }
  correlations_.emplace_back(market_id1, market_id2, corr);
  generated_until_ = time;
}

void Fundamentals::set_correlation_entry(int market_id1, int market_id2, double corr) {
  for (auto& [a, b, c] : correlations_) {
    if (a == market_id1 && b == market_id2) {
      c = corr;
      return;
    }
  }
  correlations_.emplace_back(market_id1, market_id2, corr);
}

bool Fundamentals::erase_correlation_entry(int market_id1, int market_id2) {
  for (auto it = correlations_.begin(); it != correlations_.end(); ++it) {
    if (std::get<0>(*it) == market_id1 && std::get<1>(*it) == market_id2) {
      correlations_.erase(it);
      return true;
    }
  }
  return false;
}

void Fundamentals::remove_correlation(int market_id1, int market_id2,
                                      int64_t time) {
  if (market_id1 == market_id2) {
    throw SimulationError("a correlation needs two different markets");
  }
  for (auto it = correlations_.begin(); it != correlations_.end(); ++it) {
    const auto& [a, b, c] = *it;
    if ((a == market_id1 && b == market_id2) ||
        (a == market_id2 && b == market_id1)) {
      correlations_.erase(it);
      generated_until_ = time;
      return;
    }
  }
  throw SimulationError("no such correlation");
}

void Fundamentals::change_volatility(int market_id, double volatility,
                                     int64_t time) {
  if (!(volatility >= 0.0)) {
    throw SimulationError("fundamental volatility must be non-negative");
  }
  path(market_id).volatility = volatility;
  generated_until_ = time;
}

void Fundamentals::change_drift(int market_id, double drift, int64_t time) {
  path(market_id).drift = drift;
  generated_until_ = time;
}

double Fundamentals::get_fundamental_price(int market_id, int64_t time) {
  const Path& p = path(market_id);
  while (time >= generated_until_) GenerateNext();
  if (time < 0 || static_cast<size_t>(time) >= p.prices.size()) {
    throw std::out_of_range("market " + std::to_string(market_id) +
                            " has no fundamental price at step " + std::to_string(time) +
                            " (its prices hold " + std::to_string(p.prices.size()) +
                            " steps)");
  }
  return p.prices[static_cast<size_t>(time)];
}

void Fundamentals::set_price_and_regenerate(int market_id, int64_t time,
                                            double price) {
  Path& p = path(market_id);
  if (time < 0 || static_cast<size_t>(time) >= p.prices.size()) {
    throw SimulationError("fundamental price at step " + std::to_string(time) +
                          " has not been generated");
  }
  p.prices[static_cast<size_t>(time)] = price;
  generated_until_ = time;
}

void Fundamentals::GenerateNext() {
  int64_t length = kChunkSize;
  bool has_change_point = false;
  int64_t first_change = 0;
  for (int id : market_ids_) {
    const int64_t s = paths_.at(id).start_at;
    if (s > generated_until_ && (!has_change_point || s < first_change)) {
      first_change = s;
      has_change_point = true;
    }
  }
  if (has_change_point) length = first_change - generated_until_;
  const int64_t next_until = generated_until_ + length;

  std::vector<int> targets;
  for (int id : market_ids_) {
    if (paths_.at(id).start_at < next_until) targets.push_back(id);
  }
  std::vector<int> chol_ids;
  for (int id : targets) {
    if (paths_.at(id).volatility != 0.0) chol_ids.push_back(id);
  }
  const int n = static_cast<int>(chol_ids.size());
  const size_t len = static_cast<size_t>(length);
  auto index_of = [&](int id) {
    return static_cast<int>(std::find(chol_ids.begin(), chol_ids.end(), id) -
                            chol_ids.begin());
  };

  // cov = vol * corr * vol.reshape(-1, 1): cov[i][j] = (vol[j] * corr[i][j]) * vol[i].
  std::vector<double> corr(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) corr[static_cast<size_t>(i) * n + i] = 1.0;
  for (const auto& [a, b, c] : correlations_) {
    const int ia = index_of(a);
    const int ib = index_of(b);
    if (ia == n || ib == n) continue;
    if (a == b) {
      throw SimulationError("market " + std::to_string(a) +
                            " is correlated with itself in the fundamentals");
    }
    corr[static_cast<size_t>(ia) * n + ib] = c;
    corr[static_cast<size_t>(ib) * n + ia] = c;
  }
  std::vector<double> chol(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double vi = paths_.at(chol_ids[i]).volatility;
      const double vj = paths_.at(chol_ids[j]).volatility;
      chol[static_cast<size_t>(i) * n + j] =
          (vj * corr[static_cast<size_t>(i) * n + j]) * vi;
    }
  }
  if (!CholeskyLower(chol, n)) {
    throw SimulationError(
        "the fundamental correlation matrix is not positive definite; check "
        "simulation.fundamentalCorrelations for an impossible combination "
        "(e.g. a circle of strong correlations)");
  }
  // standard_normal(size=(n, length)), row-major.
  std::vector<double> dw(static_cast<size_t>(n) * len);
  np_prng_.standard_normal(dw);

  // Each path goes on from its price at generated_until_, which a program
  // that set a path's prices (set_prices) may have left out: checked after
  // the draws, as PAMS reads that price after drawing (its IndexError
  // leaves the generator where a successful draw would).
  for (int id : targets) {
    if (paths_.at(id).prices.size() <= static_cast<size_t>(generated_until_)) {
      throw std::out_of_range("market " + std::to_string(id) +
                              "'s fundamental prices end before step " +
                              std::to_string(generated_until_) +
                              ", which the next prices are drawn from");
    }
  }

  // For each target: log returns, cumsum, exp, times the price at the start.
  std::vector<double> log_return(len);
  for (int id : targets) {
    Path& p = paths_.at(id);
    const int i = index_of(id);
    if (i < n) {
      // np.dot(L, dw) with reference BLAS: products added in k order from 0.
      for (size_t j = 0; j < len; ++j) {
        double acc = 0.0;
        for (int k = 0; k < n; ++k) {
          const double prod = chol[static_cast<size_t>(i) * n + k] *
                              dw[static_cast<size_t>(k) * len + j];
          acc = acc + prod;
        }
        log_return[j] = acc + p.drift;
      }
    } else {
      std::fill(log_return.begin(), log_return.end(), p.drift);
    }
    const double start = p.prices.at(static_cast<size_t>(generated_until_));
    p.prices.resize(static_cast<size_t>(generated_until_ + 1));
    double sum = 0.0;
    for (size_t j = 0; j < len; ++j) {
      sum = j == 0 ? log_return[0] : sum + log_return[j];
      p.prices.push_back(start * std::exp(sum));
    }
  }
  generated_until_ = next_until;
}

}  // namespace pams
