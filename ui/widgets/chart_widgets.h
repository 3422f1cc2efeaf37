#pragma once
// Small pieces the comparison pages share: the run palette, a chart view set up the house way,
// read-only table cells, and tables as tall as their rows.

#include <QColor>
#include <QString>

#include <cstddef>

class QChart;
class QChartView;
class QValueAxis;
class QTableWidget;
class QTableWidgetItem;

namespace mirror::ui {

// Tableau's ten colours, by run index (cycling): distinct for the usual handful of runs.
QColor palette_colour(size_t index);
// A chart view with `title`, no animation, the legend below, antialiased.
QChartView* new_chart_view(const QString& title);
// Title, axis labels and titles and legend of `chart` in the application's font (the title a
// little larger and bold), so that projector mode's large font reaches charts too. A chart theme
// resets these: call again after setTheme.
void apply_chart_fonts(QChart* chart);
// A cell that can be selected but not edited.
QTableWidgetItem* read_only_cell(const QString& text);
// The 1-2-5 step (1, 2, 5, 10, 20, ...) that splits [0, span] into at most `ticks` intervals;
// at least 1 when `whole`.
double nice_step(double span, int ticks = 5, bool whole = false);
// Sets `axis` to [0, max] (rounded up to the next nice step when `round_up`, for a growing run),
// with ticks at multiples of a 1-2-5 step and labels without decimals when `whole` (steps):
// "0 250 500 750", never "0 0 1 1 1".
void set_nice_range(QValueAxis* axis, double max, bool whole, bool round_up = true);
// Makes `t` as tall as its rows (up to eight), so charts beside it get the rest of the space.
void fit_height(QTableWidget* t);

}  // namespace mirror::ui
