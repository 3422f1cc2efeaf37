#pragma once
// The comparison as a one-page report: HTML, or Markdown for a path ending in .md; every chart
// embedded as a 900x420 PNG (base64), the tables as tables.

#include <QString>

#include <cstddef>
#include <vector>

class QChartView;
class QTableWidget;

namespace mirror::ui {

// One embedded chart: its heading, the view (not owned) and, where the chart keeps its key beside
// it rather than in a legend, that key as our own rich text (printed under the picture).
struct ReportChart {
  QString title;
  QChartView* view = nullptr;
  QString key;
};

struct ComparisonReport {
  size_t runs = 0;
  std::vector<ReportChart> charts;
  const QTableWidget* table = nullptr;                  // differing settings and results
  QString scaling_text;                                 // empty: no scaling section
  const QTableWidget* scaling_table = nullptr;
};

// How the compared charts draw each run, in one sentence: the view's hint and the reports say it
// alike (the reports had kept the line styles of an older chart).
QString comparison_key();

// False when `path` cannot be written.
bool write_comparison_report(const QString& path, const ComparisonReport& report);

}  // namespace mirror::ui
