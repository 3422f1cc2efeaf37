// Tested by tests/ui/runs/test_compare_view.cpp.
#include "ui/runs/compare_report.h"

#include <QBuffer>
#include <QChartView>
#include <QDateTime>
#include <QFile>
#include <QHeaderView>
#include <QTableWidget>
#include <QTextDocumentFragment>
#include <QTextStream>

#include "mirror/util/untrusted_text.h"

namespace mirror::ui {

namespace {
// Run names, config keys and values and the reading come from run.json: every text is escaped.
QString html(const QString& text) { return QString::fromStdString(html_text(text.toStdString())); }
QString markdown(const QString& text) { return QString::fromStdString(markdown_text(text.toStdString())); }

QString html_table(const QTableWidget* t) {
  QString out = "<table>\n<tr>";
  for (int c = 0; c < t->columnCount(); ++c) out += "<th>" + html(t->horizontalHeaderItem(c)->text()) + "</th>";
  out += "</tr>\n";
  for (int r = 0; r < t->rowCount(); ++r) {
    out += "<tr>";
    for (int c = 0; c < t->columnCount(); ++c) {
      const auto* item = t->item(r, c);
      QString style;
      if (c == 0 && item && item->data(Qt::UserRole).canConvert<QColor>())
        style = QString(" style=\"border-left: 8px solid %1\"").arg(item->data(Qt::UserRole).value<QColor>().name());
      out += "<td" + style + ">" + (item ? html(item->text()) : QString()) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

QString markdown_table(const QTableWidget* t) {
  QString out = "|";
  for (int c = 0; c < t->columnCount(); ++c) out += " " + markdown(t->horizontalHeaderItem(c)->text()) + " |";
  out += "\n|";
  for (int c = 0; c < t->columnCount(); ++c) out += " --- |";
  out += "\n";
  for (int r = 0; r < t->rowCount(); ++r) {
    out += "|";
    for (int c = 0; c < t->columnCount(); ++c) out += " " + markdown(t->item(r, c) ? t->item(r, c)->text() : QString()) + " |";
    out += "\n";
  }
  return out;
}

QString chart_png_base64(QChartView* view) {
  // A fixed size so that the report looks the same whatever the window's size.
  const QSize old = view->size();
  view->resize(900, 420);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  view->grab().save(&buffer, "PNG");
  view->resize(old);
  return QString::fromLatin1(bytes.toBase64());
}
}  // namespace

QString comparison_key() {
  return "Thick lines: training, smoothed per step; thin lines with markers: validation per epoch. Each run has "
         "its own colour, dash pattern and marker, as the table shows.";
}

bool write_comparison_report(const QString& path, const ComparisonReport& r) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
  const bool md = path.endsWith(".md", Qt::CaseInsensitive);
  const bool scaling = r.scaling_table && !r.scaling_text.isEmpty();
  QString out;
  QTextStream s(&out);
  const QString when = QDateTime::currentDateTimeUtc().toString("yyyy-MM-dd HH:mm 'UTC'");
  if (md) {
    s << "# Run comparison\n\n" << r.runs << " runs, " << when
      << ". " << markdown(comparison_key()) << "\n\n";
    s << markdown_table(r.table) << "\n";
    for (const ReportChart& c : r.charts) {
      s << "## " << markdown(c.title) << "\n\n![" << markdown(c.title) << "](data:image/png;base64," << chart_png_base64(c.view)
        << ")\n\n";
      if (!c.key.isEmpty()) s << markdown(QTextDocumentFragment::fromHtml(c.key).toPlainText()) << "\n\n";
    }
    if (scaling) s << "## Scaling\n\n" << markdown(r.scaling_text) << "\n\n" << markdown_table(r.scaling_table);
  } else {
    s << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Run comparison</title>\n"
         "<style>body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}"
         "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
         "img{max-width:100%}</style></head><body>\n";
    s << "<h1>Run comparison</h1>\n<p>" << r.runs << " runs, " << when
      << ". " << html(comparison_key()) << "</p>\n";
    s << html_table(r.table);
    for (const ReportChart& c : r.charts) {
      s << "<h2>" << html(c.title) << "</h2>\n<img alt=\"" << html(c.title)
        << "\" src=\"data:image/png;base64," << chart_png_base64(c.view) << "\">\n";
      // The key is ours (series names and their colours), not read from a file: kept as rich text.
      if (!c.key.isEmpty()) s << "<p class=\"key\">" << c.key << "</p>\n";
    }
    if (scaling) s << "<h2>Scaling</h2>\n<p>" << html(r.scaling_text) << "</p>\n" << html_table(r.scaling_table);
    s << "</body></html>\n";
  }
  s.flush();
  return f.write(out.toUtf8()) == out.toUtf8().size() && f.flush();
}

}  // namespace mirror::ui
