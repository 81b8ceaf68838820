// Settings accessors and PAMS's JsonRandom / json_extends.

#include "pams/config/settings.h"

#include <cmath>
#include <limits>

#include "config/key_log.h"
#include "pams/errors.h"
#include "pams/random/random.h"
#include "support/python_format.h"

namespace pams {

namespace {

bool IsNumber(const Json& v) { return v.is_number(); }

double NumberValue(const Json& v) {
  if (v.is_number_unsigned()) return static_cast<double>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<double>(v.get<int64_t>());
  return v.get<double>();
}

}  // namespace

void Settings::Looked(std::string_view key) const {
  if (log_ != nullptr) log_->Read(child_path(key));
}

bool Settings::has(std::string_view key) const {
  Looked(key);
  return json_->is_object() && json_->contains(key);
}

std::string Settings::child_path(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  return path_ + "." + std::string(key);
}

Settings Settings::operator[](std::string_view key) const {
  if (!json_->is_object()) fail("expected an object, got " + JsonTypeName(*json_));
  Looked(key);
  auto it = json_->find(key);
  if (it == json_->end()) {
    throw ConfigError(child_path(key), "required key is missing");
  }
  return Settings(*it, child_path(key), log_);
}

std::optional<Settings> Settings::find(std::string_view key) const {
  if (!json_->is_object()) return std::nullopt;
  Looked(key);
  auto it = json_->find(key);
  if (it == json_->end()) return std::nullopt;
  return Settings(*it, child_path(key), log_);
}

Settings Settings::at(size_t i) const {
  return Settings((*json_)[i], path_ + "[" + std::to_string(i) + "]", log_);
}

size_t Settings::size() const {
  return json_->is_array() || json_->is_object() ? json_->size() : 0;
}

void Settings::fail(const std::string& message) const {
  throw ConfigError(path_, message);
}

double Settings::as_float() const {
  if (!IsNumber(*json_)) fail("expected a number, got " + JsonTypeName(*json_));
  return NumberValue(*json_);
}

int64_t Settings::as_int() const {
  if (json_->is_number_integer() && !json_->is_number_unsigned()) {
    return json_->get<int64_t>();
  }
  if (json_->is_number_unsigned()) {
    const uint64_t u = json_->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail("integer " + json_->dump() + " is too large");
    }
    return static_cast<int64_t>(u);
  }
  fail("expected an integer, got " + JsonTypeName(*json_));
}

int64_t Settings::as_positive_int() const {
  const int64_t v = as_int();
  if (v < 1) fail("expected a positive integer, got " + std::to_string(v));
  return v;
}

bool Settings::as_bool() const {
  if (!json_->is_boolean()) {
    fail("expected true or false, got " + JsonTypeName(*json_));
  }
  return json_->get<bool>();
}

const std::string& Settings::as_string() const {
  if (!json_->is_string()) fail("expected a string, got " + JsonTypeName(*json_));
  return json_->get_ref<const std::string&>();
}

std::vector<std::string> Settings::as_string_list() const {
  if (!json_->is_array()) {
    fail("expected a list of strings, got " + JsonTypeName(*json_));
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < json_->size(); ++i) out.push_back(at(i).as_string());
  return out;
}

std::string Settings::as_python_str() const {
  const Json& v = *json_;
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_number_float()) return PythonFloat(v.get<double>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_null()) return "None";
  fail("expected a string or a number, got " + JsonTypeName(v));
}

namespace {

// The arguments of {"kind": [args...]}, checked as PAMS checks them.
const Json& DistributionArgs(const Settings& s, const char* kind, size_t n,
                             const char* form) {
  const Json& args = s.json().at(kind);
  if (!args.is_array() || args.size() != n) {
    s.fail(std::string(form) + ", got " + s.json().dump());
  }
  for (const Json& a : args) {
    if (!a.is_number()) s.fail(std::string(form) + ", got " + s.json().dump());
  }
  return args;
}

// PAMS draws uniform(200, 100) without complaint; a reversed range is
// almost always a typo, so it is refused.
void CheckOrderedRange(const Settings& s, const Json& range, const char* form) {
  if (NumberValue(range[0]) > NumberValue(range[1])) {
    s.fail(std::string("expected ") + form + " with min <= max, got [" +
           range[0].dump() + ", " + range[1].dump() + "]");
  }
}

}  // namespace

void Settings::check_json_random() const {
  const Json& v = *json_;
  if (v.is_number()) return;
  if (v.is_array()) {
    if (v.size() != 2 || !v[0].is_number() || !v[1].is_number()) {
      fail("uniform distribution must be [min, max], got " + v.dump());
    }
    CheckOrderedRange(*this, v, "[min, max]");
    return;
  }
  if (v.is_object()) {
    if (v.size() != 1) {
      fail("expected one distribution type, got " + v.dump());
    }
    if (v.contains("const")) {
      DistributionArgs(*this, "const", 1, "constant must be {\"const\": [value]}");
    } else if (v.contains("uniform")) {
      CheckOrderedRange(
          *this,
          DistributionArgs(*this, "uniform", 2,
                           "uniform distribution must be {\"uniform\": [min, max]}"),
          "{\"uniform\": [min, max]}");
    } else if (v.contains("normal")) {
      DistributionArgs(*this, "normal", 2,
                       "normal distribution must be {\"normal\": [mu, sigma]}");
    } else if (v.contains("expon")) {
      DistributionArgs(*this, "expon", 1,
                       "exponential distribution must be {\"expon\": [lambda]}");
    } else {
      fail("unknown distribution type " + v.dump() +
           " (expected const, uniform, normal or expon)");
    }
    return;
  }
  fail("expected a number, [min, max] or a distribution such as "
       "{\"normal\": [mu, sigma]}, got " + JsonTypeName(v));
}

double Settings::json_random(Random& prng) const {
  check_json_random();
  const Json& v = *json_;
  if (v.is_number()) return NumberValue(v);
  if (v.is_array()) {
    const double lo = NumberValue(v[0]);
    const double hi = NumberValue(v[1]);
    return prng.random() * (hi - lo) + lo;
  }
  if (v.contains("const")) return NumberValue(v.at("const")[0]);
  if (v.contains("uniform")) {
    const double lo = NumberValue(v.at("uniform")[0]);
    const double hi = NumberValue(v.at("uniform")[1]);
    return prng.random() * (hi - lo) + lo;
  }
  if (v.contains("normal")) {
    return prng.gauss(NumberValue(v.at("normal")[0]),
                      NumberValue(v.at("normal")[1]));
  }
  // expon: lam * -log(random()); random() == 0 gives inf, as in PAMS.
  const double lam = NumberValue(v.at("expon")[0]);
  return lam * -std::log(prng.random());
}

Json ResolveExtends(const Json& whole, const std::string& name,
                    const Json& target,
                    const std::vector<std::string>& excluded) {
  if (!target.is_object()) {
    throw ConfigError(name, "expected an object, got " + JsonTypeName(target));
  }
  Json result = target;
  std::vector<std::string> history = {name};
  while (result.contains("extends")) {
    const Json parent_name = result["extends"];
    result.erase("extends");
    if (!parent_name.is_string()) {
      throw ConfigError(name + ".extends",
                        "expected the name of another entry, got " +
                            JsonTypeName(parent_name));
    }
    const std::string parent = parent_name.get<std::string>();
    if (!whole.contains(parent)) {
      throw ConfigError(name + ".extends", "cannot extend \"" + parent +
                                               "\": there is no such entry");
    }
    for (const std::string& h : history) {
      if (h == parent) {
        throw ConfigError(name + ".extends",
                          "extends loop through \"" + parent + "\"");
      }
    }
    history.push_back(parent);
    const Json& parent_json = whole[parent];
    if (!parent_json.is_object()) {
      throw ConfigError(parent, "expected an object, got " +
                                    JsonTypeName(parent_json));
    }
    // {**parent (minus excluded keys), **result}: the parent's keys first in
    // its order, then the child's own new keys; the child's values win.
    Json merged = Json::object();
    for (auto it = parent_json.begin(); it != parent_json.end(); ++it) {
      bool skip = false;
      for (const std::string& ex : excluded) skip = skip || it.key() == ex;
      if (!skip) merged[it.key()] = it.value();
    }
    for (auto it = result.begin(); it != result.end(); ++it) {
      merged[it.key()] = it.value();
    }
    result = std::move(merged);
  }
  return result;
}

}  // namespace pams
