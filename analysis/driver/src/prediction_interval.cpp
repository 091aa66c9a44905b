// Prediction intervals from the cross-validated errors of comparable validation rows.
#include "driver/prediction_interval.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <map>
#include <set>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/schema.h"

namespace hpcsim {

namespace {

constexpr const char* kFile = "prediction-intervals.yaml";
constexpr double kCoverage = 0.90;  // the central share of the cross-validated ratios an interval spans
// The rank j of the band's ends among n ratios, floor((n + 1) x (1 - coverage) / 2); the slack keeps a product
// that is an integer from falling just under it. 0: too few rows for a band of their own.
constexpr std::size_t band_rank(std::size_t n) {
  return static_cast<std::size_t>(static_cast<double>(n + 1) * (1 - kCoverage) / 2 + 1e-9);
}
static_assert(band_rank(IntervalTable::kConformalRows) == 1 && band_rank(IntervalTable::kConformalRows - 1) == 0,
              "kConformalRows is the fewest rows with a band rank of 1");

std::string kind_of(const Model& model) {
  if (model.networks.size() > 1) return "gan";  // a generator and a discriminator
  bool attention = false;
  for (const Network& net : model.networks) {
    for (const LayerNode& node : net.nodes()) {
      if (!node.layer) continue;
      const LayerTraits traits = node.layer->traits();
      if (traits.recurrent) return "rnn";
      attention = attention || traits.self_attention;
    }
  }
  return attention ? "transformer" : "cnn";
}

std::string precision_group(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: return "fp32";
    case Precision::fp8:
    case Precision::mxfp8:
    case Precision::nvfp4:
    case Precision::mxfp4: return "fp8";  // narrow GEMM formats: one group
    default: return "half";
  }
}

std::string kind_entry(const std::string& cls) { return cls.substr(0, cls.find('/')) + "/*"; }

struct Residuals {
  std::vector<double> ratios;
  std::set<std::string> families;
};

IntervalEntry entry_of(const std::string& cls, Residuals r) {
  std::vector<double>& ratios = r.ratios;
  std::sort(ratios.begin(), ratios.end());
  // A band for the next row, not a quantile of these: the j-th smallest and j-th largest of n ratios hold
  // a new exchangeable ratio with probability (n + 1 - 2j) / (n + 1), so j = floor((n + 1) x 5 %), at least
  // 1 (split-conformal prediction: Lei, G'Sell, Rinaldo, Tibshirani, Wasserman, "Distribution-Free
  // Predictive Inference for Regression", JASA 2018, the ceil((n + 1)(1 - alpha))-th residual). The sample's
  // own nearest-rank 5-95 % is narrower for the small classes here (20 rows: the 19th largest, not the
  // largest), and covered 79.6 % of the rows family-out.
  const std::size_t n = ratios.size();
  const std::size_t j = std::max<std::size_t>(1, band_rank(n));
  return {cls, static_cast<int>(n), static_cast<int>(r.families.size()), ratios[j - 1], ratios[n - j]};
}

bool inside(const std::optional<IntervalEntry>& e, double ratio) { return e && ratio >= e->low_ratio && ratio <= e->high_ratio; }

const Schema& table_schema() {
  static const Schema schema = Schema::map({required(
      "intervals", Schema::list(Schema::map({required("class", Schema::string()), required("rows", Schema::integer().at_least(1)),
                                              required("families", Schema::integer().at_least(1)),
                                              required("low_ratio", Schema::number().positive()),
                                              required("high_ratio", Schema::number().positive())})))});
  return schema;
}

}  // namespace

std::string prediction_class(const TrainingScenario& scenario) {
  return kind_of(scenario.workload.built) + "/" + precision_group(scenario.workload.precision);
}

IntervalTable IntervalTable::derive(const CrossValidation& cv) {
  std::map<std::string, Residuals> residuals;  // ordered: the table is deterministic
  const std::vector<ValidationRow>& rows = cv.in_sample.rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].interval_class.empty()) continue;  // microbenchmarks are not step predictions
    ValidationRow left_out = rows[i];
    left_out.predicted = cv.predicted[i];
    const double ratio = left_out.time_ratio();
    for (const std::string& key : {rows[i].interval_class, kind_entry(rows[i].interval_class), std::string("*")}) {
      residuals[key].ratios.push_back(ratio);
      residuals[key].families.insert(rows[i].family);
    }
  }
  IntervalTable table;
  for (auto& [cls, r] : residuals) {
    if (static_cast<int>(r.ratios.size()) >= kMinRows && static_cast<int>(r.families.size()) >= kMinFamilies) {
      table.entries_.push_back(entry_of(cls, std::move(r)));
    }
  }
  // A class of fewer than kConformalRows rows has no 90 % band of its own: the extremes of its n ratios
  // (j = 1) hold a new row with probability (n - 1) / (n + 1) only, under 90 % below 19 rows. It takes the hull
  // of those extremes (what sets the class apart, as the GAN rows' speed) and the band of its first fallback
  // with enough rows (its kind, then all rows): at least the fallback's 90 % when the class is like the rest.
  const std::vector<IntervalEntry> own = table.entries_;
  for (IntervalEntry& e : table.entries_) {
    if (e.rows >= kConformalRows) continue;
    for (const std::string& key : {kind_entry(e.cls), std::string("*")}) {
      if (key == e.cls) continue;
      const auto fallback = std::find_if(own.begin(), own.end(), [&](const IntervalEntry& f) { return f.cls == key; });
      if (fallback == own.end() || fallback->rows < kConformalRows) continue;
      e.low_ratio = std::min(e.low_ratio, fallback->low_ratio);
      e.high_ratio = std::max(e.high_ratio, fallback->high_ratio);
      break;
    }
  }
  return table;
}

IntervalTable IntervalTable::load(const std::filesystem::path& config_root) { return load(config_root, kFile); }

IntervalTable IntervalTable::load(const std::filesystem::path& config_root, const std::string& file_name) {
  IntervalTable table;
  const std::filesystem::path file = config_root / file_name;
  if (!std::filesystem::exists(file)) return table;
  const ConfigNode root = load_config_file(file);
  table_schema().validate(root);
  for (const ConfigNode& e : root.at("intervals").items()) {
    IntervalEntry entry{e.get_string("class"), static_cast<int>(e.get_int("rows")), static_cast<int>(e.get_int("families")),
                        e.get_number("low_ratio"), e.get_number("high_ratio")};
    if (entry.low_ratio > entry.high_ratio) throw ConfigError(e.at("low_ratio").loc(), "low_ratio is above high_ratio");
    table.entries_.push_back(entry);
  }
  return table;
}

std::optional<IntervalEntry> IntervalTable::lookup(const std::string& cls) const {
  for (const std::string& key : {cls, kind_entry(cls), std::string("*")}) {
    for (const IntervalEntry& e : entries_) {
      if (e.cls == key) return e;
    }
  }
  return std::nullopt;
}

std::optional<PredictionInterval> IntervalTable::interval(const std::string& cls, double predicted_step_time_s) const {
  const std::optional<IntervalEntry> e = lookup(cls);
  if (!e) return std::nullopt;
  return PredictionInterval{e->cls, e->rows, predicted_step_time_s / e->high_ratio, predicted_step_time_s / e->low_ratio};
}

std::string IntervalTable::to_yaml() const {
  return "# Prediction intervals: for each prediction class (workload kind / precision group), its kind (\"cnn/*\")\n"
         "# and all rows (\"*\"), a 90 % band for a new row (split conformal: the j-th\n"
         "# smallest and largest, j = floor((n + 1) x 5 %)) of the cross-validated (family-out) ratios of\n"
         "# predicted to measured step time of the validation rows; hpcsim run reports true step time in\n"
         "# [predicted / high_ratio, predicted / low_ratio], widened to cover its assumptions. Classes with fewer\n"
         "# than 5 rows or rows from fewer than 2 source families fall back to their kind, then to \"*\"; a class of\n"
         "# 5 to 18 rows (too few for a 90 % band of its own) spans its extreme ratios and its fallback's band.\n"
         "# Derived, not edited: `hpcsim validate --intervals > configs/prediction-intervals.yaml` (a test checks it).\n" +
         entries_yaml();
}

std::string IntervalTable::entries_yaml() const {
  std::string out = "intervals:\n";
  char line[256];
  for (const IntervalEntry& e : entries_) {
    // Rounded outward, so that the rows at the band's ends stay inside the shipped band.
    std::snprintf(line, sizeof line, "  - {class: \"%s\", rows: %d, families: %d, low_ratio: %.4f, high_ratio: %.4f}\n",
                  e.cls.c_str(), e.rows, e.families, std::floor(e.low_ratio * 1e4) / 1e4, std::ceil(e.high_ratio * 1e4) / 1e4);
    out += line;
  }
  return out;
}

CrossValidation unfitted_cross_validation(const ValidationReport& report) {
  CrossValidation cv;
  cv.in_sample = report;
  for (const ValidationRow& row : report.rows) {
    cv.predicted.push_back(row.predicted);
    cv.error.push_back(row.error);
  }
  cv.mape = report.mape;
  cv.worst = report.worst;
  return cv;
}

std::vector<CategoryIntervalCoverage> unfitted_interval_coverage(const ValidationReport& report, const IntervalTable& table,
                                                                 const std::vector<std::string>& categories) {
  std::vector<std::string> all = categories;
  all.push_back("*");
  // Each family's rows are judged against the table derived without that family: one derivation a family.
  std::map<std::string, IntervalTable> without;
  for (const ValidationRow& row : report.rows) {
    if (row.interval_class.empty() || without.count(row.family)) continue;
    ValidationReport others;
    for (const ValidationRow& r : report.rows) {
      if (r.family != row.family) others.rows.push_back(r);
    }
    without.emplace(row.family, IntervalTable::derive(unfitted_cross_validation(others)));
  }
  std::vector<CategoryIntervalCoverage> out;
  for (const std::string& category : all) {
    CategoryIntervalCoverage c{category};
    for (const ValidationRow& row : report.rows) {
      if (row.interval_class.empty() || (category != "*" && row.category != category)) continue;
      ++c.rows;
      c.in_sample += inside(table.lookup(row.interval_class), row.time_ratio()) ? 1 : 0;
      c.family_out += inside(without.at(row.family).lookup(row.interval_class), row.time_ratio()) ? 1 : 0;
    }
    if (c.rows > 0) out.push_back(c);
  }
  return out;
}

void add_metric_interval(Report& report, const std::string& name, const IntervalEntry& e) {
  auto it = std::find_if(report.metrics.begin(), report.metrics.end(), [&](const Metric& m) { return m.name == name; });
  if (it == report.metrics.end() || !it->value) return;
  const double v = *it->value;
  const bool time = is_time_metric(name);
  const double low = time ? v / e.high_ratio : v * e.low_ratio;
  const double high = time ? v / e.low_ratio : v * e.high_ratio;
  const std::string unit = it->unit;
  report.metrics.insert(it + 1, {{name + "_interval[0]", low, unit}, {name + "_interval[1]", high, unit}});
}

IntervalCoverage IntervalTable::coverage(const CrossValidation& cv) const {
  IntervalCoverage c;
  const std::vector<ValidationRow>& rows = cv.in_sample.rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ValidationRow& row = rows[i];
    if (row.interval_class.empty()) continue;  // microbenchmarks carry no step-time interval
    ++c.rows;
    if (inside(lookup(row.interval_class), row.time_ratio())) ++c.in_sample;
    CrossValidation others;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (rows[j].family == row.family) continue;
      others.in_sample.rows.push_back(rows[j]);
      others.predicted.push_back(cv.predicted[j]);
    }
    ValidationRow left_out = row;
    left_out.predicted = cv.predicted[i];
    if (inside(derive(others).lookup(row.interval_class), left_out.time_ratio())) ++c.family_out;
  }
  return c;
}

}  // namespace hpcsim
