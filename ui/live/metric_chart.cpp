// Tested by tests/ui/live/test_live_page.cpp and tests/ui/window/test_room_layout.cpp.
#include "ui/live/metric_chart.h"

#include <QChart>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QGraphicsLayout>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/export.h"

namespace mirror::ui {

namespace {
// Training and validation in the first two run colours (Okabe and Ito's blue and orange, apart
// for every colour vision); validation also differs in its markers.
QColor train_colour(bool dark) { return palette_colour(0, dark); }
QColor val_colour(bool dark) { return palette_colour(1, dark); }
// Epoch points a few pixels across, so that they mark the epochs without burying the curves.
double epoch_marker_size(double line_width) { return 1.5 * line_width + 3; }
}  // namespace

MetricChart::MetricChart(Metric metric, const QString& title, QWidget* parent)
    : QChartView(new QChart(), parent), metric_(metric) {
  auto* c = chart();
  c->setTitle(title);
  c->setAnimationOptions(QChart::NoAnimation);
  c->legend()->setAlignment(Qt::AlignRight);
  c->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // the validation line's dashes show there too
  c->setMargins(QMargins(4, 4, 4, 4));
  raw_ = new QLineSeries(this);
  raw_->setName("train (step)");
  smooth_ = new QLineSeries(this);
  smooth_->setName("train (smoothed)");
  train_epochs_ = new QScatterSeries(this);
  train_epochs_->setName("train (epoch)");
  train_epochs_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  val_epochs_ = new QLineSeries(this);
  val_epochs_->setName("validation (epoch)");
  val_epochs_->setPointsVisible(true);
  colour_series();
  for (QXYSeries* s : std::initializer_list<QXYSeries*>{raw_, smooth_, train_epochs_, val_epochs_}) {
    s->setUseOpenGL(false);
    c->addSeries(s);
    // Hover read-out: the value under the pointer, in the series' own words.
    connect(s, &QXYSeries::hovered, this, [this, s](const QPointF& p, bool state) {
      if (state) QToolTip::showText(QCursor::pos(), QString("%1\nstep %2: %3").arg(s->name()).arg(p.x(), 0, 'f', 0).arg(p.y(), 0, 'g', 5), this);
      else QToolTip::hideText();
    });
  }
  if (metric_ == Metric::kLearningRate) {
    // One line: the rate each step used (there is nothing to smooth or validate).
    raw_->setName("learning rate");
    raw_->setColor(train_colour(dark_));
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{smooth_, train_epochs_, val_epochs_}) {
      s->setVisible(false);
      c->legend()->markers(s).value(0)->setVisible(false);
    }
  }
  x_axis_ = new QValueAxis(this);
  x_axis_->setTitleText("step");
  set_nice_range(x_axis_, 0.0, /*whole=*/true);  // before any run: "0 1", not "0 0 1 1 1"
  y_linear_ = new QValueAxis(this);
  y_linear_->setLabelFormat("%.3g");
  y_log_ = new QLogValueAxis(this);
  y_log_->setBase(10);
  y_log_->setLabelFormat("%.3g");
  c->addAxis(x_axis_, Qt::AlignBottom);
  for (auto* s : c->series()) s->attachAxis(x_axis_);
  attach_y_axis();
  setRenderHint(QPainter::Antialiasing);
  set_line_width(line_width_);
  apply_chart_fonts(c);
  // Small enough that four charts and the replica view fit a 1280x720 window, even in projector mode.
  setMinimumHeight(110);
}

void MetricChart::set_projector(bool on) {
  projector_ = on;
  x_axis_->setTitleVisible(!on);  // "step" is plain from the numbers; the plot gets the line
  place_legend();
  apply_chart_fonts(chart());
}

void MetricChart::set_legend_visible(bool on) { chart()->legend()->setVisible(on); }

QString MetricChart::legend_html() const {
  // Glyphs for the line styles: thin and thick solid, a square marker, dashes with a point.
  const std::pair<const QXYSeries*, QString> entries[] = {
      {raw_, QString(2, QChar(0x2500))}, {smooth_, QString(2, QChar(0x2501))}, {train_epochs_, QString(QChar(0x25A0))},
      {val_epochs_, QString(QChar(0x254C)) + QChar(0x25CF) + QChar(0x254C)}};
  QStringList html;
  for (const auto& [series, glyph] : entries) {
    if (!series->isVisible()) continue;
    html << QString("<span style=\"color:%1\"><b>%2</b></span>&nbsp;%3")
                .arg(series->color().name(), glyph, series->name().toHtmlEscaped().replace(' ', "&nbsp;"));
  }
  return html.join(" &nbsp;&nbsp; ");
}

void MetricChart::place_legend() {
  const bool below = projector_ || height() < 260;
  const Qt::Alignment want = below ? Qt::AlignBottom : Qt::AlignRight;
  if (chart()->legend()->alignment() != want) chart()->legend()->setAlignment(want);
}

void MetricChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  place_legend();
  // After the chart has laid out its new plot area.
  QMetaObject::invokeMethod(
      this,
      [this] {
        fit_y_ticks(y_lo_, y_hi_);
        fit_x_ticks(x_last_);
      },
      Qt::QueuedConnection);
}

void MetricChart::fit_x_ticks(double last) {
  x_last_ = last;
  const double plot = chart()->plotArea().width();
  // The widest label is the range's end, rounded up a step: its width plus one digit's of space.
  const QFontMetricsF metrics(x_axis_->labelsFont());
  const double label = metrics.horizontalAdvance(QString::number(std::ceil(std::max(last, 1.0) * 1.25))) +
                       metrics.horizontalAdvance('0');
  // Rounded up, n intervals carry n + 1 labels.
  const int most = plot > 0 && label > 0 ? std::clamp(static_cast<int>(plot / label) - 1, 1, 5) : 5;
  set_nice_range(x_axis_, last, /*whole=*/true, /*round_up=*/true, most);
}

void MetricChart::fit_y_ticks(double lo, double hi) {
  y_lo_ = lo;
  y_hi_ = hi;
  const double plot = chart()->plotArea().height();
  const double label = QFontMetricsF(y_linear_->labelsFont()).height();
  // Before the first layout the plot has no height: keep Qt's default of 5.
  const int most = plot > 0 && label > 0 ? std::clamp(static_cast<int>(plot / (1.25 * label)) + 1, 2, 5) : 5;
  // Ticks on multiples of a nice step (1, 2 or 5 x 10^k) around [lo, hi]; the next nice step up
  // while they would be more than `most` (rounding the ends outwards can add an interval each).
  double step = nice_step(std::max(hi - lo, 1e-12), most - 1);
  double from = lo, to = hi;
  for (int guard = 0; guard < 64; ++guard) {
    from = std::floor(lo / step + 1e-9) * step;
    to = std::ceil(hi / step - 1e-9) * step;
    if (std::lround((to - from) / step) <= most - 1) break;
    step = nice_step(step * 1.001, 1);
  }
  if (!(to > from)) to = from + step;
  if (!std::isfinite(from) || !std::isfinite(to) || !(step > 0)) return;
  // The axis lays out its ticks at every change: with the old interval and the new range (a loss
  // that grew from 1 to 10^6) that would be a million ticks. So first an interval that gives at
  // most a few ticks on either range, then the range, then the interval wanted.
  const bool dynamic = y_linear_->tickType() == QValueAxis::TicksDynamic;
  if (dynamic) y_linear_->setTickInterval(std::max({to - from, y_linear_->max() - y_linear_->min(), step}));
  y_linear_->setRange(from, to);
  y_linear_->setTickAnchor(from);
  y_linear_->setTickInterval(step);
  if (!dynamic) y_linear_->setTickType(QValueAxis::TicksDynamic);
}

QAbstractAxis* MetricChart::y_axis() const {
  return log_scale_ ? static_cast<QAbstractAxis*>(y_log_) : y_linear_;
}

void MetricChart::attach_y_axis() {
  auto* c = chart();
  QAbstractAxis* old = log_scale_ ? static_cast<QAbstractAxis*>(y_linear_) : y_log_;
  QAbstractAxis* now = log_scale_ ? static_cast<QAbstractAxis*>(y_log_) : y_linear_;
  if (c->axes(Qt::Vertical).contains(old)) {
    for (auto* s : c->series()) s->detachAxis(old);
    c->removeAxis(old);
  }
  if (!c->axes(Qt::Vertical).contains(now)) {
    c->addAxis(now, Qt::AlignLeft);
    for (auto* s : c->series()) s->attachAxis(now);
    apply_chart_fonts(c);  // the swapped-in axis takes the current (maybe projector) font
  }
}

void MetricChart::set_log_scale(bool on) {
  if (on == log_scale_) return;
  log_scale_ = on;
  attach_y_axis();
}

void MetricChart::set_line_width(double width) {
  line_width_ = width;
  auto pen = [](QColor c, double w) {
    QPen p(c);
    p.setWidthF(w);
    return p;
  };
  raw_->setPen(pen(raw_->color(), std::max(1.0, width / 2)));
  smooth_->setPen(pen(smooth_->color(), width));
  QPen val = pen(val_epochs_->color(), width);
  val.setStyle(Qt::DashLine);  // validation is told from training by its dashes too, not only its colour
  val_epochs_->setPen(val);
  const double marker = epoch_marker_size(width);
  train_epochs_->setMarkerSize(marker);
  train_epochs_->setBorderColor(Qt::transparent);
  // A drawn marker: a line series draws its own points at twice the marker size.
  val_epochs_->setMarkerSize(marker);
  val_epochs_->setLightMarker(run_marker_image(/*index=*/1, dark_, static_cast<int>(std::lround(marker))));
}

void MetricChart::colour_series() {
  const QColor train = train_colour(dark_);
  // The raw per-step values faint under the smoothed line, yet at 3:1 on the chart (they were 1.5:1).
  // Where the colour has no room to fade (the light theme's blue is near 3:1 on its grey), the
  // smoothed line stands out from the background instead.
  const QColor faint = faint_on(train, *chart());
  const bool lr = metric_ == Metric::kLearningRate;
  raw_->setColor(lr ? train : faint);
  smooth_->setColor(lr || faint != train ? train : (dark_ ? train.lighter(150) : train.darker(150)));
  train_epochs_->setColor(train);
  val_epochs_->setColor(val_colour(dark_));
}

void MetricChart::set_dark(bool dark) {
  chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  apply_chart_fonts(chart());  // a theme brings its own fonts
  dark_ = dark;
  colour_series();
  set_line_width(line_width_);
}

bool MetricChart::series_shown(ChartSeries series) const { return shown_[static_cast<int>(series)]; }

void MetricChart::set_series_shown(ChartSeries series, bool on) {
  shown_[static_cast<int>(series)] = on;
  if (metric_ == Metric::kLearningRate) return;  // one line only
  raw_->setVisible(shown_[0]);
  smooth_->setVisible(shown_[1]);
  train_epochs_->setVisible(shown_[2]);
  val_epochs_->setVisible(shown_[2]);
  if (last_) refresh(*last_);
}

void MetricChart::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  if (metric_ != Metric::kLearningRate) {
    const std::pair<ChartSeries, const char*> toggles[] = {{ChartSeries::kRaw, "Steps (raw)"},
                                                           {ChartSeries::kSmoothed, "Steps (smoothed)"},
                                                           {ChartSeries::kEpochs, "Epochs (training and validation)"}};
    for (const auto& [series, text] : toggles) {
      QAction* a = menu.addAction(text);
      a->setCheckable(true);
      a->setChecked(series_shown(series));
      connect(a, &QAction::toggled, this, [this, series = series](bool on) { set_series_shown(series, on); });
    }
    menu.addSeparator();
  }
  menu.addAction("Export this chart (PNG or SVG)…", this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export chart", chart()->title().toLower() + ".svg",
                                                      "SVG drawing (*.svg);;PNG image (*.png)");
    if (path.isEmpty()) return;
    if (!(path.endsWith(".png", Qt::CaseInsensitive) ? export_png(path) : export_svg(path)))
      QMessageBox::warning(this, "Export failed", "Cannot write " + path);
  });
  menu.exec(event->globalPos());
}

void MetricChart::refresh(const RunMetrics& m) {
  last_ = &m;
  const int buckets = std::max(50, width() / 2);
  raw_->replace(decimate(m.raw(metric_), buckets));
  smooth_->replace(decimate(m.smoothed(metric_), buckets));
  train_epochs_->replace(m.train_epochs(metric_));
  val_epochs_->replace(m.val_epochs(metric_));
  // The y axis fits the series shown (the raw line holds the smoothed one's range).
  std::vector<const QList<QPointF>*> fitted;
  const bool all = metric_ == Metric::kLearningRate;
  if (all || shown_[0]) fitted.push_back(&m.raw(metric_));
  else if (shown_[1]) fitted.push_back(&m.smoothed(metric_));
  if (!all && shown_[2]) fitted.insert(fitted.end(), {&m.val_epochs(metric_), &m.train_epochs(metric_)});
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto* v : fitted)
    for (const auto& p : *v) {
      if (!std::isfinite(p.y())) continue;
      lo = std::min(lo, p.y());
      hi = std::max(hi, p.y());
    }
  if (!std::isfinite(lo)) {
    lo = 0;
    hi = 1;
  }
  if (metric_ == Metric::kLearningRate) {
    lo = 0;
    hi = std::max(hi * 1.05, 1e-12);
  } else if (metric_ != Metric::kLoss) {
    lo = std::max(0.0, lo - 0.02);
    hi = std::min(1.0, hi + 0.02);
  } else {
    const double pad = std::max(1e-6, (hi - lo) * 0.05);
    lo = std::max(0.0, lo - pad);
    hi += pad;
  }
  fit_y_ticks(lo, hi);
  y_log_->setRange(std::max(lo, hi * 1e-4 > 0 ? std::max(1e-6, lo) : 1e-6), std::max(hi, 1e-5));
  // Up to the last step's place (a resumed run's first step here is not step 1).
  const auto& points = m.raw(metric_);
  fit_x_ticks(points.isEmpty() ? 0.0 : points.back().x());
}

namespace {
// The chart's own legend shown while `write` runs (on the page one legend serves all charts).
template <typename Write>
bool with_legend(QChart* chart, Write write) {
  QLegend* legend = chart->legend();
  const bool shown = legend->isVisible();
  const Qt::Alignment where = legend->alignment();
  legend->setAlignment(Qt::AlignBottom);
  legend->setVisible(true);
  if (chart->layout()) chart->layout()->activate();  // laid out before it is drawn
  const bool ok = write();
  legend->setVisible(shown);
  legend->setAlignment(where);
  if (chart->layout()) chart->layout()->activate();
  return ok;
}
}  // namespace

bool MetricChart::export_png(const QString& path) {
  return with_legend(chart(), [&] { return ui::export_png(this, path); });
}

bool MetricChart::export_svg(const QString& path) {
  return with_legend(chart(), [&] { return ui::export_svg(this, path, chart()->title()); });
}

qsizetype MetricChart::plotted_points() const { return raw_->count(); }

}  // namespace mirror::ui
