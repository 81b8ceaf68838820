// Charts: nice axis ticks, PNG and SVG files of the requested size that
// show the data, and failures (bad extension, size, path) that throw
// ConfigError and leave no file behind.

#include "analysis/chart.h"

#include <cairo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "chart_ticks.h"
#include "pams/errors.h"

namespace pams::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ChartTicksTest, NiceStepsAndWidenedRange) {
  const AxisTicks t = NiceTicks(291.3, 309.8, 5, 0, true);
  EXPECT_EQ(t.step, 5);
  EXPECT_EQ(t.lo, 290);
  EXPECT_EQ(t.hi, 310);
  EXPECT_EQ(t.values, (std::vector<double>{290, 295, 300, 305, 310}));
  EXPECT_EQ(t.decimals, 0);

  const AxisTicks small = NiceTicks(0.0012, 0.0047, 4, 0, true);
  EXPECT_DOUBLE_EQ(small.step, 0.001);
  EXPECT_EQ(small.decimals, 3);
  ASSERT_EQ(small.values.size(), 5u);
  EXPECT_EQ(FormatTick(small.values[0], small.decimals), "0.001");
  EXPECT_EQ(FormatTick(small.values[4], small.decimals), "0.005");
}

TEST(ChartTicksTest, TimeAxisKeepsItsRangeAndWholeSteps) {
  const AxisTicks t = NiceTicks(-0.5, 599.5, 10, 1, false);
  EXPECT_EQ(t.lo, -0.5);
  EXPECT_EQ(t.hi, 599.5);
  EXPECT_EQ(t.step, 50);
  EXPECT_EQ(t.values.front(), 0);
  EXPECT_EQ(t.values.back(), 550);
  // Few steps: ticks stay whole numbers.
  const AxisTicks few = NiceTicks(-0.5, 2.5, 10, 1, false);
  EXPECT_EQ(few.values, (std::vector<double>{0, 1, 2}));
}

TEST(ChartTicksTest, OneValueIsWidenedAndMinusZeroIsZero) {
  const AxisTicks t = NiceTicks(300, 300, 5, 0, true);
  EXPECT_LT(t.lo, 300);
  EXPECT_GT(t.hi, 300);
  EXPECT_GE(t.values.size(), 3u);
  const AxisTicks zero = NiceTicks(0, 0, 4, 1, true);
  EXPECT_LT(zero.lo, 0);
  EXPECT_GT(zero.hi, 0);
  EXPECT_EQ(FormatTick(-0.0001, 2), "0.00");
  EXPECT_EQ(FormatTick(-1.5, 1), "-1.5");
}

MarketSteps Market(int64_t id, const std::string& name, size_t steps, double phase) {
  MarketSteps m;
  m.market_id = id;
  m.market_name = name;
  for (size_t t = 0; t < steps; ++t) {
    m.session_id.push_back(t < steps / 5 ? 0 : 1);
    m.market_time.push_back(static_cast<int64_t>(t));
    m.market_price.push_back(300 + 10 * std::sin(t / 20.0 + phase));
    m.fundamental_price.push_back(300 + 5 * std::cos(t / 50.0));
    m.executed_volume.push_back(t < steps / 5 ? 0 : static_cast<double>(t % 7));
  }
  return m;
}

class ChartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("pams-chart-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    table_.markets.push_back(Market(0, "Market", 600, 0));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The names in the test's directory (to see that no temporary is left).
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // WriteChart's ConfigError message; "" if it succeeded.
  std::string ErrorOf(const StepsTable& table, const std::string& path,
                      const ChartOptions& options = {}) {
    try {
      WriteChart(table, path, options);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }

  // Pixels of the PNG for which is_color(r, g, b) holds (0-255 each).
  template <typename Predicate>
  static int CountPixels(cairo_surface_t* png, Predicate is_color) {
    cairo_surface_flush(png);
    const unsigned char* data = cairo_image_surface_get_data(png);
    const int stride = cairo_image_surface_get_stride(png);
    int count = 0;
    for (int y = 0; y < cairo_image_surface_get_height(png); ++y) {
      for (int x = 0; x < cairo_image_surface_get_width(png); ++x) {
        const uint32_t p = *reinterpret_cast<const uint32_t*>(data + y * stride + 4 * x);
        if (is_color((p >> 16) & 255, (p >> 8) & 255, p & 255)) ++count;
      }
    }
    return count;
  }

  std::filesystem::path dir_;
  StepsTable table_;
};

TEST_F(ChartTest, PngHasTheRequestedSizeAndShowsThePrices) {
  ChartOptions options;
  options.width = 900;
  options.height = 500;
  options.title = "CI2002";
  ASSERT_EQ(ErrorOf(table_, Path("chart.png"), options), "");
  EXPECT_EQ(Files(), (std::vector<std::string>{"chart.png"}));
  cairo_surface_t* png = cairo_image_surface_create_from_png(Path("chart.png").c_str());
  ASSERT_EQ(cairo_surface_status(png), CAIRO_STATUS_SUCCESS);
  EXPECT_EQ(cairo_image_surface_get_width(png), 900);
  EXPECT_EQ(cairo_image_surface_get_height(png), 500);
  // The market price's blue and the fundamental price's orange (lines are
  // anti-aliased: shades of them).
  const int blue = CountPixels(png, [](int r, int, int b) { return b > 140 && b - r > 80; });
  const int orange = CountPixels(png, [](int r, int g, int b) { return r > 200 && r - b > 80 && g < 200; });
  EXPECT_GT(blue, 500);
  EXPECT_GT(orange, 200);
  cairo_surface_destroy(png);
}

TEST_F(ChartTest, SvgHasTheRequestedSizeInPixels) {
  ChartOptions options;
  options.width = 640;
  options.height = 480;
  ASSERT_EQ(ErrorOf(table_, Path("chart.SVG"), options), "");
  std::ifstream in(Path("chart.SVG"));
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("<?xml", 0), 0u);
  EXPECT_NE(text.str().find("width=\"640px\" height=\"480px\""), std::string::npos);
  EXPECT_NE(text.str().find("</svg>"), std::string::npos);
}

TEST_F(ChartTest, ManyMarketsAndNaNPricesDraw) {
  for (int i = 1; i < 6; ++i) table_.markets.push_back(Market(i, "M" + std::to_string(i), 600, i));
  for (size_t t = 100; t < 200; ++t) table_.markets[2].market_price[t] = kNaN;
  table_.markets[3].market_price[300] = kNaN;  // a lone value between NaNs
  table_.markets[3].market_price[302] = kNaN;
  for (double& f : table_.markets[4].fundamental_price) f = kNaN;
  for (size_t n : {3u, 6u}) {
    StepsTable table;
    table.markets.assign(table_.markets.begin(), table_.markets.begin() + n);
    EXPECT_EQ(ErrorOf(table, Path("many" + std::to_string(n) + ".png")), "");
  }
}

TEST_F(ChartTest, NamesThatAreNotUtf8Draw) {
  table_.markets[0].market_name = "caf\xe9 \xe2\x82";  // Latin-1, then a cut sequence
  ChartOptions options;
  options.title = "\xff title";
  EXPECT_EQ(ErrorOf(table_, Path("latin1.png"), options), "");
}

TEST_F(ChartTest, AllPricesNaNAndOneStepDraw) {
  StepsTable table;
  table.markets.push_back(Market(0, "Market", 1, 0));
  table.markets[0].market_price[0] = kNaN;
  table.markets[0].fundamental_price[0] = kNaN;
  EXPECT_EQ(ErrorOf(table, Path("empty.svg")), "");
}

TEST_F(ChartTest, BadInputThrowsAndLeavesNoFile) {
  EXPECT_EQ(ErrorOf(table_, Path("chart.jpg")),
            Path("chart.jpg") + ": a chart's file name must end in .png or .svg");
  ChartOptions tiny;
  tiny.width = 10;
  EXPECT_EQ(ErrorOf(table_, Path("chart.png"), tiny),
            Path("chart.png") + ": the chart's size must be from 320x240 to 8192x8192, got 10x800");
  EXPECT_EQ(ErrorOf(StepsTable{}, Path("chart.png")),
            Path("chart.png") + ": nothing to draw: the steps table has no rows");
  const std::string missing_dir = Path("no/such/dir/chart.png");
  EXPECT_EQ(ErrorOf(table_, missing_dir),
            missing_dir + ": cannot write the chart: No such file or directory");
  // A directory in the way: the rename fails, and the temporary goes.
  std::filesystem::create_directory(Path("taken.png"));
  EXPECT_NE(ErrorOf(table_, Path("taken.png")), "");
  EXPECT_EQ(Files(), (std::vector<std::string>{"taken.png"}));
}

TEST_F(ChartTest, ReplacesAnExistingFile) {
  std::ofstream(Path("chart.png")) << "old";
  ASSERT_EQ(ErrorOf(table_, Path("chart.png")), "");
  EXPECT_GT(std::filesystem::file_size(Path("chart.png")), 1000u);
  EXPECT_EQ(Files(), (std::vector<std::string>{"chart.png"}));
}

}  // namespace
}  // namespace pams::analysis
