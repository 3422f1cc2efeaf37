#pragma once
// Small pieces the comparison pages share: the run palette, a chart view set up the house way,
// read-only table cells, and tables as tall as their rows.

#include <QColor>
#include <QImage>
#include <QPen>
#include <QScatterSeries>
#include <QString>

#include <cstddef>
#include <vector>

class QChart;
class QChartView;
class QValueAxis;
class QTableWidget;
class QTableWidgetItem;

namespace mirror::ui {

// Run `index`'s colour (cycling through eight): Okabe and Ito's colour-blind-safe set, ordered
// and toned so that the first six stay apart under deuteranopia and protanopia and stand out from
// the chart's background in the light (`dark` false) and the dark theme alike.
QColor palette_colour(size_t index, bool dark = false);
// Run `index`'s second cue, so that colour is never the only one: its line's dash pattern (solid,
// dashed, dotted, dash-dot, ...; the first six differ) and its markers' shape.
Qt::PenStyle palette_line_style(size_t index);
QScatterSeries::MarkerShape palette_marker(size_t index);
// Run `index`'s marker drawn `size` pixels wide in its colour, for QXYSeries::setLightMarker.
QImage run_marker_image(size_t index, bool dark, int size);
// A pen for run `index`'s line: its colour and dash pattern, `width` wide.
QPen run_pen(size_t index, bool dark, double width);
// WCAG 2's contrast ratio of two colours (1 to 21; 3 is its floor for graphics, 4.5 for text).
double contrast_ratio(const QColor& a, const QColor& b);
// The colours `chart` draws its background and plot area in (a gradient's every stop).
std::vector<QColor> chart_background_colours(const QChart& chart);
// `colour` faded towards `chart`'s background as far as it may go while it keeps WCAG's 3:1 on
// every colour of it: a faint line under a bold one, still seen (the Live page's raw losses
// were 1.5:1 on the dark theme).
QColor faint_on(const QColor& colour, const QChart& chart);
// `name` as a legend shows it: whole up to `max_chars`, else its first and last characters
// (at least `keep` of each: "20261203-14…lr0.1-batch64") around an ellipsis.
QString elide_middle(const QString& name, int max_chars = 28, int keep = 8);
// A chart view with `title`, no animation, the legend below, antialiased.
QChartView* new_chart_view(const QString& title);
// Removes (and deletes) every series and axis of `chart`, to draw it again.
void clear_chart(QChart* chart);
// Title, axis labels and titles and legend of `chart` in the application's font (the title a
// little larger and bold), so that projector mode's large font reaches charts too. A chart theme
// resets these: call again after setTheme.
void apply_chart_fonts(QChart* chart);
// A cell that can be selected but not edited; in a sorted table numbers sort as numbers.
QTableWidgetItem* read_only_cell(const QString& text);
// The 1-2-5 step (1, 2, 5, 10, 20, ...) that splits [0, span] into at most `ticks` intervals;
// at least 1 when `whole`.
double nice_step(double span, int ticks = 5, bool whole = false);
// Sets `axis` to [0, max] (rounded up to the next nice step when `round_up`, for a growing run),
// with ticks at multiples of a 1-2-5 step and labels without decimals when `whole` (steps):
// "0 250 500 750", never "0 0 1 1 1"; at most `intervals` intervals (fewer on a narrow chart).
void set_nice_range(QValueAxis* axis, double max, bool whole, bool round_up = true, int intervals = 5);
// Makes `t` at most as tall as its rows (up to eight), so charts beside it get the rest of the
// space, and lets it shrink to two rows (scrolled) where the window is short.
void fit_height(QTableWidget* t);

}  // namespace mirror::ui
