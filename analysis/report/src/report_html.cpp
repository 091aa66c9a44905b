#include "report/report_html.h"

#include <algorithm>
#include <cstdio>

namespace hpcsim {

namespace {

constexpr std::string_view kStyle = R"(body{font-family:sans-serif;margin:2em auto;max-width:70em;color:#222}
figure{margin:2em 0}img{max-width:100%;border:1px solid #ddd}figcaption{color:#444;margin-top:.5em}
table{border-collapse:collapse;font-size:.9em}th,td{border:1px solid #ccc;padding:.2em .5em}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.failed{color:#a00}.note{color:#666})";

// Counts the decoded images once everything has loaded: what the headless-browser test reads.
constexpr std::string_view kLoadCheck = R"(window.addEventListener('load', function () {
  var images = document.images, loaded = 0;
  for (var i = 0; i < images.length; ++i) if (images[i].complete && images[i].naturalWidth > 0) ++loaded;
  document.body.setAttribute('data-images-loaded', loaded + '/' + images.length);
});)";

std::string number_cell(const std::optional<double>& value) {
  if (!value) return "<td class=\"n\"></td>";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", *value);
  return std::string("<td class=\"n\">") + buf + "</td>";
}

std::string text_cell(std::string_view text) { return "<td>" + html_escape(text) + "</td>"; }

std::string runs_table(const std::vector<RunRow>& runs) {
  std::string out = "<h2>Runs</h2>\n<p>" + std::to_string(runs.size()) +
                    " runs in the store (all kinds; <a href=\"runs.csv\">runs.csv</a>).</p>\n<table>\n"
                    "<tr><th>id</th><th>started (UTC)</th><th>scenario</th><th>study point</th><th>kind</th><th>status</th><th>GPUs</th>"
                    "<th>step time (s)</th><th>throughput (samples/s)</th><th>wall time (s)</th><th>message</th></tr>\n";
  for (const RunRow& r : runs) {
    out += r.run.status == "ok" ? "<tr>" : "<tr class=\"failed\">";
    out += "<td class=\"n\">" + std::to_string(r.run.id) + "</td>" + text_cell(r.run.started_at) + text_cell(r.run.scenario_name) +
           text_cell(r.study_point) + text_cell(r.run.kind) + text_cell(r.run.status) + number_cell(r.gpus) + number_cell(r.step_time_s) +
           number_cell(r.samples_per_s) + number_cell(r.run.wall_s) + text_cell(r.run.message) + "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (n > 1) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (n > 2) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += n > 1 ? kAlphabet[(v >> 6) & 63] : '=';
    out += n > 2 ? kAlphabet[v & 63] : '=';
  }
  return out;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string report_html(std::string_view database, const std::vector<ReportFigure>& figures,
                        const std::vector<std::string>& notes, const std::vector<RunRow>& runs) {
  const std::string title = "hpcsim report: " + html_escape(database);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + title +
                    "</title>\n<style>\n" + std::string(kStyle) + "\n</style>\n<script>\n" + std::string(kLoadCheck) +
                    "\n</script>\n</head>\n<body>\n<h1>" + title + "</h1>\n";
  for (const ReportFigure& f : figures)
    out += "<figure>\n<h2>" + html_escape(f.title) + "</h2>\n<img alt=\"" + html_escape(f.title) +
           "\" src=\"data:image/png;base64," + base64(f.png_bytes) + "\">\n<figcaption>" + html_escape(f.caption) +
           " Data: <a href=\"" + html_escape(f.csv_file) + "\">" + html_escape(f.csv_file) + "</a>.</figcaption>\n</figure>\n";
  for (const std::string& n : notes) out += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  return out + runs_table(runs) + "</body>\n</html>\n";
}

}  // namespace hpcsim
