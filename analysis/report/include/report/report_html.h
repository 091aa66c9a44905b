#pragma once
// The page `hpcsim report` writes: one self-contained HTML file (figures embedded as base64 PNG data URIs,
// no scripts or styles from elsewhere) with the table of runs. The same inputs give the same bytes.
#include <string>
#include <string_view>
#include <vector>

#include "report/report_data.h"

namespace hpcsim {

struct ReportFigure {
  std::string title;      // e.g. "Throughput against GPU count"
  std::string caption;    // what the figure shows and where its data came from
  std::string png_bytes;  // the PNG file's contents
  std::string csv_file;   // the CSV behind it, a name in the report's folder
};

// `database` names the store in the heading; `notes` say why a figure is missing (no scaling runs, no
// plan). On load the page sets <body data-images-loaded="LOADED/TOTAL">, counting the images the browser
// decoded, so a headless browser can check that every figure shows.
std::string report_html(std::string_view database, const std::vector<ReportFigure>& figures,
                        const std::vector<std::string>& notes, const std::vector<RunRow>& runs);

// Standard base64 (RFC 4648) with padding.
std::string base64(std::string_view bytes);
// Text with &, <, >, " escaped for HTML.
std::string html_escape(std::string_view text);

}  // namespace hpcsim
