#pragma once
// Small pieces the comparison pages share: the run palette, a chart view set up the house way,
// read-only table cells, and tables as tall as their rows.

#include <QColor>
#include <QString>

#include <cstddef>

class QChartView;
class QTableWidget;
class QTableWidgetItem;

namespace mirror::ui {

// Tableau's ten colours, by run index (cycling): distinct for the usual handful of runs.
QColor palette_colour(size_t index);
// A chart view with `title`, no animation, the legend below, antialiased.
QChartView* new_chart_view(const QString& title);
// A cell that can be selected but not edited.
QTableWidgetItem* read_only_cell(const QString& text);
// Makes `t` as tall as its rows (up to eight), so charts beside it get the rest of the space.
void fit_height(QTableWidget* t);

}  // namespace mirror::ui
