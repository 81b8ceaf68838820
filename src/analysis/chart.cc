#include "analysis/chart.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chart_ticks.h"
#include "pams/errors.h"

namespace pams::analysis {

namespace {

struct Color {
  double r, g, b;
};

// matplotlib's "tab10": distinct colours that most colour-blind readers can
// tell apart too.
constexpr Color kPalette[] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173},
    {0.839, 0.153, 0.157}, {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294},
    {0.890, 0.467, 0.761}, {0.498, 0.498, 0.498}, {0.737, 0.741, 0.133},
    {0.090, 0.745, 0.812}};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr Color kText{0.13, 0.13, 0.13};
constexpr Color kGrid{0.9, 0.9, 0.9};
constexpr Color kFrame{0.6, 0.6, 0.6};
constexpr Color kSession{0.35, 0.35, 0.35};
constexpr Color kVolume{0.55, 0.55, 0.55};

// More markets than this share one panel: stacked panels would be too low
// to read.
constexpr size_t kMaxStackedMarkets = 4;

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

// Maps data values [d0, d1] linearly onto pixels [p0, p1].
struct Scale {
  double d0, d1, p0, p1;
  double operator()(double v) const { return p0 + (v - d0) * (p1 - p0) / (d1 - d0); }
};

enum class Align { kStart, kCenter, kEnd };

struct LegendItem {
  enum Kind { kLine, kDashed, kBox } kind;
  Color color;
  std::string label;
};

// text with each byte that is not part of valid UTF-8 replaced by '?':
// cairo refuses invalid UTF-8 (and then draws nothing more), and a market
// name from a hand-edited CSV may be Latin-1.
std::string ValidUtf8(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    // The length of the sequence c starts and the least value it may
    // encode (a longer encoding of a smaller value is invalid).
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    uint32_t code = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    bool ok = n != 0 && i + n <= text.size();
    for (size_t k = 1; ok && k < n; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      ok = (next >> 6) == 2;
      code = (code << 6) | (next & 0x3f);
    }
    static constexpr uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && code >= kLeast[n] && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    if (ok) {
      out.append(text, i, n);
      i += n;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

// Markets drawn in one price panel and one volume panel.
struct Group {
  std::vector<const MarketSteps*> markets;
  std::string heading;
  Rect price_panel, volume_panel;
  AxisTicks price_ticks, volume_ticks;
  // volume[i][b]: the volume of markets[i] in time bucket b.
  std::vector<std::vector<double>> volume;
};

// Draws one chart on a cairo context. Sizes are in pixels at 1200x800 and
// scale with the chart, so that a large chart is not all tiny text.
class Painter {
 public:
  Painter(cairo_t* cr, const StepsTable& table, const ChartOptions& options)
      : cr_(cr), table_(table), options_(options) {
    s_ = std::clamp(std::min(options.width / 1200.0, options.height / 800.0), 0.75, 3.0);
  }

  void Paint() {
    cairo_set_source_rgb(cr_, 1, 1, 1);
    cairo_paint(cr_);
    cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
    ComputeTimeRange();
    double top = 10 * s_;
    if (!options_.title.empty()) {
      Text(options_.title, options_.width / 2.0, top, Align::kCenter, Align::kStart,
           16 * s_, true, kText);
      top += 16 * s_ * 1.6;
    }
    MakeGroups(top);
    top = DrawLegend(top);
    Layout(top);
    for (const Group& g : groups_) DrawGroup(g);
    DrawTimeAxis();
  }

 private:
  double TickFont() const { return 11 * s_; }
  double LabelFont() const { return 12 * s_; }
  double HeadingHeight() const { return 12.5 * s_ * 1.7; }
  // Room for the lowest price label and the highest volume label, which
  // both stick out of their panels by half a line.
  double PanelGap() const { return TickFont() * 1.2 + 2 * s_; }
  double GroupGap() const { return 14 * s_; }
  double BottomHeight() const { return TickFont() * 1.8 + LabelFont() * 1.8 + 6 * s_; }

  void ComputeTimeRange() {
    t_min_ = std::numeric_limits<int64_t>::max();
    t_max_ = std::numeric_limits<int64_t>::min();
    for (const MarketSteps& m : table_.markets) {
      for (int64_t t : m.market_time) {
        t_min_ = std::min(t_min_, t);
        t_max_ = std::max(t_max_, t);
      }
    }
    // Each step is a slot one unit wide, centred on its time, so that the
    // volume bars of the first and last steps are whole.
    x_domain_lo_ = static_cast<double>(t_min_) - 0.5;
    x_domain_hi_ = static_cast<double>(t_max_) + 0.5;
    // Volume bars at least ~1.5 pixels wide: several steps per bar when the
    // steps outnumber the pixels (thinner bars blur into grey). The plot's
    // width is not known yet (it depends on the labels); an estimate does.
    const double span = static_cast<double>(t_max_ - t_min_) + 1;
    const double bars = std::max(1.0, (options_.width - 110 * s_) / (1.5 * s_));
    bucket_ = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(span / bars)));
    buckets_ = static_cast<size_t>((t_max_ - t_min_) / bucket_ + 1);
  }

  // One group per market when each gets enough height, else one for all.
  void MakeGroups(double top) {
    const size_t n = table_.markets.size();
    // The legend is drawn after this choice (its items depend on it): allow
    // for three rows of it.
    const double fixed = top + 3 * LabelFont() * 1.6 + BottomHeight();
    const double per_market =
        (options_.height - fixed) / n - HeadingHeight() - PanelGap() - GroupGap();
    const bool stacked = n == 1 || (n <= kMaxStackedMarkets && per_market >= 110 * s_);
    if (stacked) {
      for (const MarketSteps& m : table_.markets) {
        groups_.emplace_back();
        groups_.back().markets = {&m};
        groups_.back().heading =
            fmt::format("{} (market {})", PrintableName(m.market_name), m.market_id);
      }
    } else {
      groups_.emplace_back();
      for (const MarketSteps& m : table_.markets) groups_.back().markets.push_back(&m);
      groups_.back().heading = fmt::format("{} markets", n);
    }
    for (Group& g : groups_) {
      for (const MarketSteps* m : g.markets) {
        std::vector<double> volume(buckets_, 0.0);
        for (size_t i = 0; i < m->market_time.size(); ++i) {
          const double v = m->executed_volume[i];
          if (std::isfinite(v)) volume[(m->market_time[i] - t_min_) / bucket_] += v;
        }
        g.volume.push_back(std::move(volume));
      }
    }
  }

  bool Stacked() const { return groups_.size() > 1 || groups_[0].markets.size() == 1; }

  // The legend below the title, wrapped into rows; returns its bottom.
  double DrawLegend(double top) {
    std::vector<LegendItem> items;
    const std::string volume =
        bucket_ == 1 ? "executed volume"
                     : fmt::format("executed volume per {} steps", bucket_);
    if (Stacked()) {
      items.push_back({LegendItem::kLine, kPalette[0], "market price"});
      items.push_back({LegendItem::kDashed, kPalette[1], "fundamental price"});
      items.push_back({LegendItem::kBox, kVolume, volume});
    } else {
      for (size_t i = 0; i < table_.markets.size(); ++i) {
        items.push_back({LegendItem::kBox, kPalette[i % kPaletteSize],
                         PrintableName(table_.markets[i].market_name)});
      }
      items.push_back({LegendItem::kLine, kText, "market price"});
      items.push_back({LegendItem::kDashed, kText, "fundamental price"});
      items.push_back({LegendItem::kBox, kVolume, volume + " (stacked)"});
    }
    if (HasSessionBoundary()) {
      items.push_back({LegendItem::kDashed, kSession, "session boundary"});
    }
    const double font = LabelFont();
    const double sample = 24 * s_;
    const double row = font * 1.6;
    const double left = 10 * s_;
    double x = left;
    double y = top;
    for (const LegendItem& item : items) {
      SetFont(font, false);
      const double width = sample + 6 * s_ + TextWidth(item.label);
      if (x > left && x + width > options_.width - 10 * s_) {
        x = left;
        y += row;
      }
      const double mid = y + row / 2;
      SetColor(item.color);
      if (item.kind == LegendItem::kBox) {
        cairo_rectangle(cr_, x + 4 * s_, mid - 5 * s_, sample - 8 * s_, 10 * s_);
        cairo_fill(cr_);
      } else {
        SetLine(item.kind == LegendItem::kDashed ? 1.4 * s_ : 1.8 * s_,
                item.kind == LegendItem::kDashed);
        cairo_move_to(cr_, x, mid);
        cairo_line_to(cr_, x + sample, mid);
        cairo_stroke(cr_);
        cairo_set_dash(cr_, nullptr, 0, 0);
      }
      Text(item.label, x + sample + 6 * s_, mid, Align::kStart, Align::kCenter, font,
           false, kText);
      x += width + 18 * s_;
    }
    return y + row + 6 * s_;
  }

  bool HasSessionBoundary() const {
    for (const MarketSteps& m : table_.markets) {
      for (size_t i = 1; i < m.session_id.size(); ++i) {
        if (m.session_id[i] != m.session_id[i - 1]) return true;
      }
    }
    return false;
  }

  // Panel heights, ticks, then the left margin that the tick labels need.
  void Layout(double top) {
    const double n = static_cast<double>(groups_.size());
    const double available = options_.height - top - BottomHeight() -
                             n * (HeadingHeight() + PanelGap()) - (n - 1) * GroupGap();
    const double price_h = std::max(20.0, available / n * 0.74);
    const double volume_h = std::max(12.0, available / n * 0.26);
    double widest = 0;
    SetFont(TickFont(), false);
    for (Group& g : groups_) {
      double lo = std::numeric_limits<double>::infinity();
      double hi = -lo;
      for (const MarketSteps* m : g.markets) {
        for (const std::vector<double>* prices : {&m->market_price, &m->fundamental_price}) {
          for (double p : *prices) {
            if (!std::isfinite(p)) continue;
            lo = std::min(lo, p);
            hi = std::max(hi, p);
          }
        }
      }
      if (lo > hi) lo = hi = 0;  // no price at all: an empty panel
      // A margin, so that the extremes do not run along the frame.
      const double margin = (hi - lo) * 0.03;
      lo -= margin;
      hi += margin;
      const int price_target = std::clamp(static_cast<int>(price_h / (45 * s_)), 2, 8);
      g.price_ticks = NiceTicks(lo, hi, price_target, 0, true);
      double volume_max = 0;
      for (size_t b = 0; b < buckets_; ++b) {
        double sum = 0;
        for (const std::vector<double>& v : g.volume) sum += v[b];
        volume_max = std::max(volume_max, sum);
      }
      const int volume_target = std::clamp(static_cast<int>(volume_h / (28 * s_)), 1, 4);
      g.volume_ticks = NiceTicks(0, std::max(volume_max, 1.0), volume_target, 1, true);
      for (const AxisTicks* ticks : {&g.price_ticks, &g.volume_ticks}) {
        for (double v : ticks->values) {
          widest = std::max(widest, TextWidth(FormatTick(v, ticks->decimals)));
        }
      }
    }
    const double left = 10 * s_ + LabelFont() * 1.5 + widest + 9 * s_;
    const double width = std::max(20.0, options_.width - left - 20 * s_);
    double y = top;
    for (Group& g : groups_) {
      y += HeadingHeight();
      g.price_panel = {left, y, width, price_h};
      y += price_h + PanelGap();
      g.volume_panel = {left, y, width, volume_h};
      y += volume_h + GroupGap();
    }
    x_ = Scale{x_domain_lo_, x_domain_hi_, left, left + width};
    const int time_target = std::max(2, static_cast<int>(width / (95 * s_)));
    time_ticks_ = NiceTicks(x_domain_lo_, x_domain_hi_, time_target, 1, false);
  }

  void DrawGroup(const Group& g) {
    const Rect& pp = g.price_panel;
    const Rect& vp = g.volume_panel;
    Text(g.heading, pp.x, pp.y - 5 * s_, Align::kStart, Align::kEnd, 12.5 * s_, true, kText);
    const Scale price_y{g.price_ticks.lo, g.price_ticks.hi, pp.bottom(), pp.y};
    const Scale volume_y{g.volume_ticks.lo, g.volume_ticks.hi, vp.bottom(), vp.y};
    DrawGrid(pp, g.price_ticks, price_y);
    DrawGrid(vp, g.volume_ticks, volume_y);
    AxisLabel("price", pp);
    AxisLabel("volume", vp);

    // Prices: fundamentals first, so that the market price lies on top.
    const bool one = g.markets.size() == 1;
    Clip(pp);
    for (size_t i = 0; i < g.markets.size(); ++i) {
      const Color c = one ? kPalette[1] : kPalette[i % kPaletteSize];
      DrawSeries(g.markets[i]->market_time, g.markets[i]->fundamental_price, price_y, c,
                 1.3 * s_, true);
    }
    for (size_t i = 0; i < g.markets.size(); ++i) {
      const Color c = one ? kPalette[0] : kPalette[i % kPaletteSize];
      DrawSeries(g.markets[i]->market_time, g.markets[i]->market_price, price_y, c,
                 1.4 * s_, false);
    }
    cairo_reset_clip(cr_);

    // Volumes, stacked when several markets share the panel.
    Clip(vp);
    std::vector<double> base(buckets_, 0.0);
    for (size_t i = 0; i < g.markets.size(); ++i) {
      SetColor(one ? kVolume : kPalette[i % kPaletteSize]);
      for (size_t b = 0; b < buckets_; ++b) {
        const double v = g.volume[i][b];
        if (v <= 0) continue;
        const double t0 = static_cast<double>(t_min_ + static_cast<int64_t>(b) * bucket_);
        const double x0 = x_(t0 - 0.5);
        const double x1 = x_(std::min(t0 + bucket_ - 0.5, x_domain_hi_));
        const double y0 = volume_y(base[b]);
        const double y1 = volume_y(base[b] + v);
        cairo_rectangle(cr_, x0, y1, x1 - x0, y0 - y1);
        base[b] += v;
      }
      cairo_fill(cr_);
    }
    cairo_reset_clip(cr_);

    DrawSessions(*g.markets[0], pp, vp);
    DrawFrame(pp);
    DrawFrame(vp);
  }

  // Horizontal grid lines with their labels at the left, and vertical ones
  // at the time ticks.
  void DrawGrid(const Rect& r, const AxisTicks& ticks, const Scale& y) {
    SetColor(kGrid);
    SetLine(1, false);
    for (double v : ticks.values) {
      cairo_move_to(cr_, r.x, Crisp(y(v)));
      cairo_line_to(cr_, r.right(), Crisp(y(v)));
    }
    for (double t : time_ticks_.values) {
      cairo_move_to(cr_, Crisp(x_(t)), r.y);
      cairo_line_to(cr_, Crisp(x_(t)), r.bottom());
    }
    cairo_stroke(cr_);
    SetColor(kFrame);
    for (double v : ticks.values) {
      cairo_move_to(cr_, r.x - 4 * s_, Crisp(y(v)));
      cairo_line_to(cr_, r.x, Crisp(y(v)));
    }
    cairo_stroke(cr_);
    for (double v : ticks.values) {
      Text(FormatTick(v, ticks.decimals), r.x - 7 * s_, y(v), Align::kEnd, Align::kCenter,
           TickFont(), false, kText);
    }
  }

  void DrawFrame(const Rect& r) {
    SetColor(kFrame);
    SetLine(1, false);
    cairo_rectangle(cr_, Crisp(r.x), Crisp(r.y), std::round(r.w), std::round(r.h));
    cairo_stroke(cr_);
  }

  // The y axis's title, rotated, centred on the panel.
  void AxisLabel(const std::string& label, const Rect& r) {
    cairo_save(cr_);
    cairo_translate(cr_, 10 * s_, r.y + r.h / 2);
    cairo_rotate(cr_, -std::numbers::pi / 2);
    Text(label, 0, 0, Align::kCenter, Align::kStart, LabelFont(), false, kText);
    cairo_restore(cr_);
  }

  // A line through the finite values; a NaN breaks it, and a value alone
  // between NaNs is a dot.
  void DrawSeries(const std::vector<int64_t>& time, const std::vector<double>& value,
                  const Scale& y, Color color, double width, bool dashed) {
    SetColor(color);
    SetLine(width, dashed);
    size_t run = 0;  // finite values in the current piece of line
    for (size_t i = 0; i < value.size(); ++i) {
      if (!std::isfinite(value[i])) {
        if (run == 1) Dot(time[i - 1], value[i - 1], y, width);
        run = 0;
        continue;
      }
      const double px = x_(static_cast<double>(time[i]));
      if (run == 0) {
        cairo_move_to(cr_, px, y(value[i]));
      } else {
        cairo_line_to(cr_, px, y(value[i]));
      }
      ++run;
    }
    if (run == 1) Dot(time.back(), value.back(), y, width);
    cairo_stroke(cr_);
    cairo_set_dash(cr_, nullptr, 0, 0);
  }

  void Dot(int64_t t, double v, const Scale& y, double width) {
    cairo_new_sub_path(cr_);
    cairo_arc(cr_, x_(static_cast<double>(t)), y(v), width, 0, 2 * std::numbers::pi);
  }

  // Dashed lines where the session changes, between the last step of one
  // session and the first of the next, and the sessions' names at the top
  // of the price panel (skipped where they would overlap).
  void DrawSessions(const MarketSteps& m, const Rect& pp, const Rect& vp) {
    if (m.session_id.empty()) return;
    SetColor(kSession);
    SetLine(1.1 * s_, true);
    for (size_t i = 1; i < m.session_id.size(); ++i) {
      if (m.session_id[i] == m.session_id[i - 1]) continue;
      const double x = Crisp(x_(static_cast<double>(m.market_time[i]) - 0.5));
      for (const Rect* r : {&pp, &vp}) {
        cairo_move_to(cr_, x, r->y);
        cairo_line_to(cr_, x, r->bottom());
      }
    }
    cairo_stroke(cr_);
    cairo_set_dash(cr_, nullptr, 0, 0);
    const double font = 10.5 * s_;
    SetFont(font, false);
    double free_from = pp.x;  // where the next label may start
    for (size_t i = 0; i < m.session_id.size(); ++i) {
      if (i > 0 && m.session_id[i] == m.session_id[i - 1]) continue;
      const double line = i == 0 ? pp.x : x_(static_cast<double>(m.market_time[i]) - 0.5);
      const std::string label = fmt::format("session {}", m.session_id[i]);
      const double x = line + 4 * s_;
      const double width = TextWidth(label);
      if (x < free_from || x + width > pp.right() - 2 * s_) continue;
      // A white backing keeps the label readable over the price line.
      cairo_set_source_rgba(cr_, 1, 1, 1, 0.8);
      cairo_rectangle(cr_, x - 1 * s_, pp.y + 2 * s_, width + 2 * s_, font * 1.3);
      cairo_fill(cr_);
      Text(label, x, pp.y + 3 * s_, Align::kStart, Align::kStart, font, false, kSession);
      free_from = x + width + 8 * s_;
    }
  }

  // Time tick labels and the axis title under the last panel.
  void DrawTimeAxis() {
    const Rect& r = groups_.back().volume_panel;
    SetColor(kFrame);
    SetLine(1, false);
    for (double t : time_ticks_.values) {
      cairo_move_to(cr_, Crisp(x_(t)), r.bottom());
      cairo_line_to(cr_, Crisp(x_(t)), r.bottom() + 4 * s_);
    }
    cairo_stroke(cr_);
    for (double t : time_ticks_.values) {
      Text(FormatTick(t, 0), x_(t), r.bottom() + 6 * s_, Align::kCenter, Align::kStart,
           TickFont(), false, kText);
    }
    Text("time (market_time, steps)", r.x + r.w / 2, r.bottom() + 6 * s_ + TickFont() * 1.8,
         Align::kCenter, Align::kStart, LabelFont(), false, kText);
  }

  // --- cairo helpers ---

  // A 1-pixel line on a pixel's centre is sharp, not two half-grey pixels.
  static double Crisp(double v) { return std::floor(v) + 0.5; }

  void Clip(const Rect& r) {
    cairo_rectangle(cr_, r.x, r.y, r.w, r.h);
    cairo_clip(cr_);
  }

  void SetColor(Color c) { cairo_set_source_rgb(cr_, c.r, c.g, c.b); }

  void SetLine(double width, bool dashed) {
    cairo_set_line_width(cr_, width);
    if (dashed) {
      const double dash[] = {5 * s_, 3.5 * s_};
      cairo_set_dash(cr_, dash, 2, 0);
    } else {
      cairo_set_dash(cr_, nullptr, 0, 0);
    }
  }

  void SetFont(double size, bool bold) {
    cairo_select_font_face(cr_, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr_, size);
  }

  // REQUIRES: the font is set.
  double TextWidth(const std::string& text) {
    cairo_text_extents_t extents;
    cairo_text_extents(cr_, ValidUtf8(text).c_str(), &extents);
    return extents.x_advance;
  }

  // Text anchored at (x, y): h says which of its ends (or its centre) is at
  // x, v whether y is its top, middle or bottom.
  void Text(const std::string& text, double x, double y, Align h, Align v, double size,
            bool bold, Color color) {
    SetFont(size, bold);
    cairo_font_extents_t font;
    cairo_font_extents(cr_, &font);
    const double width = TextWidth(text);
    const double left = h == Align::kStart ? x : h == Align::kCenter ? x - width / 2 : x - width;
    const double baseline = v == Align::kStart    ? y + font.ascent
                            : v == Align::kCenter ? y + (font.ascent - font.descent) / 2
                                                  : y - font.descent;
    SetColor(color);
    cairo_move_to(cr_, left, baseline);
    cairo_show_text(cr_, ValidUtf8(text).c_str());
  }

  cairo_t* cr_;
  const StepsTable& table_;
  const ChartOptions& options_;
  double s_;  // the scale of sizes
  int64_t t_min_ = 0, t_max_ = 0;
  double x_domain_lo_ = 0, x_domain_hi_ = 1;
  int64_t bucket_ = 1;  // steps per volume bar
  size_t buckets_ = 1;
  std::vector<Group> groups_;
  Scale x_{0, 1, 0, 1};
  AxisTicks time_ticks_;
};

// The chart's bytes go to a temporary file beside it (same file system, so
// that rename() is atomic), renamed over the target once complete; the
// destructor removes the temporary file if that never happened.
class TempFile {
 public:
  explicit TempFile(const std::string& path) : path_(path) {
    static std::atomic<int> counter{0};
    const std::filesystem::path target(path);
    const std::filesystem::path dir = target.parent_path();
    for (int attempt = 0; attempt < 100 && file_ == nullptr; ++attempt) {
      const std::string name = fmt::format(".{}.tmp{}-{}", target.filename().string(),
                                           getpid(), counter.fetch_add(1));
      temp_path_ = (dir / name).string();
      // 0666 less the umask: the permissions a plain fopen() would give.
      const int fd = open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0) {
        if (errno == EEXIST) continue;
        throw ConfigError(path, std::string("cannot write the chart: ") + std::strerror(errno));
      }
      file_ = fdopen(fd, "wb");
      if (file_ == nullptr) {
        close(fd);
        unlink(temp_path_.c_str());
        throw ConfigError(path, std::string("cannot write the chart: ") + std::strerror(errno));
      }
    }
    if (file_ == nullptr) throw ConfigError(path, "cannot create a temporary file beside it");
  }

  ~TempFile() {
    if (file_ != nullptr) std::fclose(file_);
    if (!committed_) unlink(temp_path_.c_str());
  }

  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // A cairo_write_func_t; closure is the TempFile.
  static cairo_status_t Write(void* closure, const unsigned char* data, unsigned int length) {
    auto* self = static_cast<TempFile*>(closure);
    if (std::fwrite(data, 1, length, self->file_) != length) {
      self->errno_ = errno;
      return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
  }

  // Throws ConfigError naming the path, with the reason of the last failed
  // write if there was one.
  [[noreturn]] void Fail(const std::string& what) const {
    throw ConfigError(path_, "cannot write the chart: " +
                                 (errno_ != 0 ? std::string(std::strerror(errno_)) : what));
  }

  // Closes the file and renames it to the target.
  void Commit() {
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!closed) {
      errno_ = errno;
      Fail("close failed");
    }
    if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
      errno_ = errno;
      Fail("rename failed");
    }
    committed_ = true;
  }

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  int errno_ = 0;
  bool committed_ = false;
};

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* cr) const { cairo_destroy(cr); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using Context = std::unique_ptr<cairo_t, ContextDeleter>;

void Draw(cairo_surface_t* surface, const StepsTable& table, const ChartOptions& options) {
  Context cr(cairo_create(surface));
  Painter(cr.get(), table, options).Paint();
  if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("drawing the chart failed: ") +
                             cairo_status_to_string(cairo_status(cr.get())));
  }
}

// ".png" or ".svg", lower-cased. Throws ConfigError for anything else.
std::string ChartExtension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension != ".png" && extension != ".svg") {
    throw ConfigError(path, "a chart's file name must end in .png or .svg");
  }
  return extension;
}

}  // namespace

void CheckChartPath(const std::string& path) {
  ChartExtension(path);
  TempFile probe(path);  // removed again when it goes
}

void WriteChart(const StepsTable& table, const std::string& path,
                const ChartOptions& options) {
  const std::string extension = ChartExtension(path);
  if (options.width < kMinChartWidth || options.width > kMaxChartSize ||
      options.height < kMinChartHeight || options.height > kMaxChartSize) {
    throw ConfigError(path, fmt::format("the chart's size must be from {}x{} to {}x{}, got {}x{}",
                                        kMinChartWidth, kMinChartHeight, kMaxChartSize,
                                        kMaxChartSize, options.width, options.height));
  }
  bool any_row = false;
  for (const MarketSteps& m : table.markets) any_row = any_row || !m.market_time.empty();
  if (!any_row) throw ConfigError(path, "nothing to draw: the steps table has no rows");

  TempFile file(path);
  if (extension == ".png") {
    Surface surface(
        cairo_image_surface_create(CAIRO_FORMAT_ARGB32, options.width, options.height));
    Draw(surface.get(), table, options);
    if (cairo_surface_write_to_png_stream(surface.get(), &TempFile::Write, &file) !=
        CAIRO_STATUS_SUCCESS) {
      file.Fail("PNG encoding failed");
    }
  } else {
    Surface surface(cairo_svg_surface_create_for_stream(&TempFile::Write, &file, options.width,
                                                        options.height));
    // Sizes in pixels, as for PNG (cairo's default unit is the point).
    cairo_svg_surface_set_document_unit(surface.get(), CAIRO_SVG_UNIT_PX);
    Draw(surface.get(), table, options);
    cairo_surface_finish(surface.get());
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) file.Fail("SVG output failed");
  }
  file.Commit();
}

}  // namespace pams::analysis
