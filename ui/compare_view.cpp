#include "ui/compare_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextStream>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

#include "mirror/util/json_fields.h"
#include "ui/export.h"
#include "ui/run_metrics.h"

namespace mirror::ui {

namespace {
// Tableau's ten colours: distinct for the usual handful of runs, and friendly to most colour vision.
const QColor kPalette[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),  QColor(214, 39, 40),
                           QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                           QColor(188, 189, 34),  QColor(23, 190, 207)};

const char* axis_title(XAxis x) {
  switch (x) {
    case XAxis::kStep: return "step";
    case XAxis::kEpoch: return "epoch";
    case XAxis::kSamples: return "samples seen";
    case XAxis::kTime: return "training time (s)";
    case XAxis::kWall: return "wall time (s)";
  }
  return "";
}

// Where a step sits on the x axis. Epochs are fractional: step i of an epoch of n steps is at
// (epoch - 1) + i / n, with n the length of a complete epoch of the run.
std::vector<double> step_xs(const RunRecord& r, XAxis x) {
  std::vector<double> xs;
  xs.reserve(r.steps.size());
  // Recorded since runs noted it; older runs: the length of their longest complete epoch.
  int64_t steps_per_epoch = json_int(r.run, "steps_per_epoch");
  if (x == XAxis::kEpoch && steps_per_epoch <= 0) {
    std::map<int, int64_t> per_epoch;
    for (const auto& s : r.steps) ++per_epoch[s.epoch];
    for (const auto& e : r.epochs) steps_per_epoch = std::max(steps_per_epoch, per_epoch[e.epoch]);
    if (steps_per_epoch == 0)
      for (const auto& [epoch, n] : per_epoch) steps_per_epoch = std::max(steps_per_epoch, n);
  }
  int current = -1;
  int64_t in_epoch = 0;
  for (const auto& s : r.steps) {
    switch (x) {
      case XAxis::kStep: xs.push_back(static_cast<double>(s.global_step)); break;
      case XAxis::kSamples: xs.push_back(static_cast<double>(s.samples_seen)); break;
      case XAxis::kTime: xs.push_back(s.train_seconds); break;
      case XAxis::kWall: xs.push_back(s.wall_seconds); break;
      case XAxis::kEpoch:
        if (s.epoch != current) {
          current = s.epoch;
          in_epoch = 0;
        }
        ++in_epoch;
        xs.push_back(s.epoch - 1 + static_cast<double>(s.step > 0 ? s.step : in_epoch) /
                                       static_cast<double>(std::max<int64_t>(1, steps_per_epoch)));
        break;
    }
  }
  return xs;
}

double epoch_x(const EpochRecord& e, XAxis x) {
  switch (x) {
    case XAxis::kStep: return static_cast<double>(e.global_step);
    case XAxis::kEpoch: return e.epoch;
    case XAxis::kSamples: return static_cast<double>(e.samples_seen);
    case XAxis::kTime: return e.train_seconds;
    case XAxis::kWall: return e.wall_seconds;
  }
  return 0;
}

QChartView* new_chart_view(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumHeight(220);
  return view;
}

QIcon swatch(const QColor& c) {
  QPixmap pm(14, 14);
  pm.fill(c);
  return QIcon(pm);
}

QTableWidgetItem* cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return item;
}

// As tall as its rows (up to a limit), so the charts get the rest of the space.
void fit_height(QTableWidget* t) {
  int h = t->horizontalHeader()->sizeHint().height() + 2 * t->frameWidth() + 4;
  for (int r = 0; r < t->rowCount() && r < 8; ++r) h += t->rowHeight(r);
  if (t->rowCount() > 8) h += t->horizontalScrollBar()->sizeHint().height();
  t->setMinimumHeight(std::max(h, 60));
  t->setMaximumHeight(std::max(h, 60));
}

QString html_table(const QTableWidget* t) {
  QString out = "<table>\n<tr>";
  for (int c = 0; c < t->columnCount(); ++c) out += "<th>" + t->horizontalHeaderItem(c)->text().toHtmlEscaped() + "</th>";
  out += "</tr>\n";
  for (int r = 0; r < t->rowCount(); ++r) {
    out += "<tr>";
    for (int c = 0; c < t->columnCount(); ++c) {
      const auto* item = t->item(r, c);
      QString style;
      if (c == 0 && item && item->data(Qt::UserRole).canConvert<QColor>())
        style = QString(" style=\"border-left: 8px solid %1\"").arg(item->data(Qt::UserRole).value<QColor>().name());
      out += "<td" + style + ">" + (item ? item->text().toHtmlEscaped() : QString()) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

QString markdown_table(const QTableWidget* t) {
  auto escape = [](QString s) { return s.replace('|', "\\|").replace('\n', ' '); };
  QString out = "|";
  for (int c = 0; c < t->columnCount(); ++c) out += " " + escape(t->horizontalHeaderItem(c)->text()) + " |";
  out += "\n|";
  for (int c = 0; c < t->columnCount(); ++c) out += " --- |";
  out += "\n";
  for (int r = 0; r < t->rowCount(); ++r) {
    out += "|";
    for (int c = 0; c < t->columnCount(); ++c) out += " " + escape(t->item(r, c) ? t->item(r, c)->text() : QString()) + " |";
    out += "\n";
  }
  return out;
}
}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  x_choice_ = new QComboBox;
  for (XAxis x : {XAxis::kStep, XAxis::kEpoch, XAxis::kSamples, XAxis::kTime, XAxis::kWall})
    x_choice_->addItem(axis_title(x), static_cast<int>(x));
  x_choice_->setToolTip("What the x axis counts: steps differ between batch sizes, samples seen and epochs do not; "
                        "training time leaves out validation, wall time includes it");
  connect(x_choice_, &QComboBox::currentIndexChanged, this,
          [this](int i) { set_x_axis(static_cast<XAxis>(x_choice_->itemData(i).toInt())); });
  smoothing_choice_ = new QDoubleSpinBox;
  smoothing_choice_->setRange(0, 0.99);
  smoothing_choice_->setSingleStep(0.05);
  smoothing_choice_->setValue(smoothing_);
  smoothing_choice_->setToolTip("Exponential smoothing of the per-step training lines (debiased, as TensorBoard): 0 shows raw steps");
  connect(smoothing_choice_, &QDoubleSpinBox::valueChanged, this, &CompareView::set_smoothing);
  log_choice_ = new QCheckBox("log loss");
  connect(log_choice_, &QCheckBox::toggled, this, &CompareView::set_log_loss);
  hint_ = new QLabel("Select runs in the list above to compare them.");
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel("x axis:"));
  bar->addWidget(x_choice_);
  bar->addWidget(new QLabel("smoothing:"));
  bar->addWidget(smoothing_choice_);
  bar->addWidget(log_choice_);
  bar->addWidget(hint_, 1);

  charts_[0] = new_chart_view("Loss");
  charts_[1] = new_chart_view("Accuracy");
  table_ = new QTableWidget;
  table_->setObjectName("compare_table");
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setMinimumHeight(90);
  auto* chart_row = new QSplitter(Qt::Horizontal);
  chart_row->addWidget(charts_[0]);
  chart_row->addWidget(charts_[1]);
  auto* curves_split = new QSplitter(Qt::Vertical);
  curves_split->addWidget(chart_row);
  curves_split->addWidget(table_);
  curves_split->setStretchFactor(0, 3);
  curves_split->setStretchFactor(1, 1);
  curves_page_ = curves_split;

  throughput_chart_ = new_chart_view("Throughput and scaling efficiency");
  breakdown_chart_ = new_chart_view("Mean step time (ms): where it goes");
  scaling_table_ = new QTableWidget;
  scaling_table_->setObjectName("scaling_table");
  scaling_table_->verticalHeader()->setVisible(false);
  scaling_table_->horizontalHeader()->setStretchLastSection(true);
  scaling_text_ = new QLabel;
  scaling_text_->setWordWrap(true);
  scaling_text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* scaling_charts = new QSplitter(Qt::Horizontal);
  scaling_charts->addWidget(throughput_chart_);
  scaling_charts->addWidget(breakdown_chart_);
  scaling_page_ = new QWidget;
  auto* scaling_layout = new QVBoxLayout(scaling_page_);
  scaling_layout->setContentsMargins(0, 0, 0, 0);
  scaling_layout->addWidget(scaling_charts, 3);
  scaling_layout->addWidget(scaling_text_);
  scaling_layout->addWidget(scaling_table_, 1);

  pages_ = new QTabWidget;
  pages_->addTab(curves_page_, "Curves");
  pages_->addTab(scaling_page_, "Scaling");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(pages_, 1);
  set_runs({});
}

QColor CompareView::colour(size_t i) const { return kPalette[i % std::size(kPalette)]; }

void CompareView::set_runs(std::vector<RunRecord> runs) {
  runs_ = std::move(runs);
  hint_->setText(runs_.empty() ? "Select runs in the list to compare them (Ctrl+click, Shift+click)."
                               : QString("%1 run(s). Solid: training, smoothed per step; dashed: validation per epoch.")
                                     .arg(runs_.size()));
  rebuild_curves();
  rebuild_table();
  rebuild_scaling();
}

void CompareView::set_x_axis(XAxis x) {
  if (x == x_) return;
  x_ = x;
  x_choice_->setCurrentIndex(x_choice_->findData(static_cast<int>(x)));
  rebuild_curves();
  Q_EMIT x_axis_changed(x);
}

void CompareView::set_smoothing(double weight) {
  weight = std::clamp(weight, 0.0, 0.99);
  if (weight == smoothing_) return;
  smoothing_ = weight;
  smoothing_choice_->setValue(weight);
  rebuild_curves();
}

void CompareView::set_log_loss(bool on) {
  if (on == log_loss_) return;
  log_loss_ = on;
  log_choice_->setChecked(on);
  rebuild_curves();
}

void CompareView::set_dark(bool dark) {
  for (QChartView* v : {charts_[0], charts_[1], throughput_chart_, breakdown_chart_})
    v->chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  rebuild_curves();  // a theme recolours the series: give the runs their colours back
  rebuild_scaling();
}

void CompareView::set_line_width(double width) {
  line_width_ = width;
  rebuild_curves();
}

void CompareView::show_scaling(bool on) { pages_->setCurrentWidget(on ? scaling_page_ : curves_page_); }

void CompareView::rebuild_curves() {
  struct Pick {
    double (*train)(const StepPoint&);
    double (*val)(const EpochRecord&);
  };
  const Pick picks[2] = {{[](const StepPoint& s) { return s.loss; }, [](const EpochRecord& e) { return e.val_loss; }},
                         {[](const StepPoint& s) { return s.accuracy; }, [](const EpochRecord& e) { return e.val_accuracy; }}};
  for (int m = 0; m < 2; ++m) {
    QChart* chart = charts_[m]->chart();
    chart->removeAllSeries();
    for (auto* axis : chart->axes()) {
      chart->removeAxis(axis);
      delete axis;
    }
    auto* x_axis = new QValueAxis;
    x_axis->setTitleText(axis_title(x_));
    x_axis->setLabelFormat(x_ == XAxis::kStep || x_ == XAxis::kSamples ? "%.0f" : "%.1f");
    const bool log_axis = m == 0 && log_loss_;
    QAbstractAxis* y_axis = nullptr;
    if (log_axis) {
      auto* log_y = new QLogValueAxis;
      log_y->setBase(10);
      log_y->setLabelFormat("%.3g");
      y_axis = log_y;
    } else {
      auto* linear_y = new QValueAxis;
      linear_y->setLabelFormat("%.3g");
      y_axis = linear_y;
    }
    chart->addAxis(x_axis, Qt::AlignBottom);
    chart->addAxis(y_axis, Qt::AlignLeft);
    double x_max = 0, y_lo = INFINITY, y_hi = -INFINITY;
    auto extend = [&](const QPointF& p) {
      if (!std::isfinite(p.y()) || (log_axis && p.y() <= 0)) return;
      x_max = std::max(x_max, p.x());
      y_lo = std::min(y_lo, p.y());
      y_hi = std::max(y_hi, p.y());
    };
    const int width = std::max(200, charts_[m]->width());
    for (size_t i = 0; i < runs_.size(); ++i) {
      const RunRecord& r = runs_[i];
      const QColor c = colour(i);
      const auto xs = step_xs(r, x_);
      QVector<QPointF> points;
      points.reserve(static_cast<qsizetype>(xs.size()));
      DebiasedEma ema(smoothing_);
      for (size_t k = 0; k < r.steps.size(); ++k) points.append(QPointF(xs[k], ema.add(picks[m].train(r.steps[k]))));
      if (!xs.empty()) x_max = std::max(x_max, xs.back());  // decimation may drop the last point
      points = decimate(points, width / 2);
      for (const auto& p : points) extend(p);
      auto* train = new QLineSeries;
      train->setName(QString::fromStdString(r.display_name()));
      QPen pen(c, line_width_);
      train->setPen(pen);
      train->replace(points);
      connect(train, &QXYSeries::hovered, charts_[m], [this, train, m](const QPointF& p, bool on) {
        if (!on) return QToolTip::hideText();
        QToolTip::showText(QCursor::pos(), QString("%1\n%2 %3: %4 %5")
                                               .arg(train->name(), axis_title(x_)).arg(p.x(), 0, 'g', 6)
                                               .arg(m == 0 ? "loss" : "accuracy").arg(p.y(), 0, 'g', 5));
      });
      chart->addSeries(train);
      train->attachAxis(x_axis);
      train->attachAxis(y_axis);
      QVector<QPointF> val_points;
      for (const auto& e : r.epochs)
        if (e.has_validation) val_points.append(QPointF(epoch_x(e, x_), picks[m].val(e)));
      if (val_points.isEmpty()) continue;
      for (const auto& p : val_points) extend(p);
      auto* val = new QLineSeries;
      val->setName(QString::fromStdString(r.display_name()) + " (validation)");
      pen.setStyle(Qt::DashLine);
      val->setPen(pen);
      val->setPointsVisible(true);
      val->setMarkerSize(2 * line_width_ + 4);
      val->replace(val_points);
      chart->addSeries(val);
      val->attachAxis(x_axis);
      val->attachAxis(y_axis);
      // One legend entry per run: the colour says which run, the dash says validation.
      for (auto* marker : chart->legend()->markers(val)) marker->setVisible(false);
    }
    if (!std::isfinite(y_lo)) {
      y_lo = 0;
      y_hi = 1;
    }
    if (log_axis) {
      static_cast<QLogValueAxis*>(y_axis)->setRange(y_lo * 0.9, y_hi * 1.1);
    } else {
      // A flat line still gets a readable axis.
      const double pad = std::max({1e-3, (y_hi - y_lo) * 0.05, y_hi == y_lo ? std::abs(y_hi) * 0.05 : 0.0});
      auto* linear_y = static_cast<QValueAxis*>(y_axis);
      linear_y->setRange(std::max(0.0, y_lo - pad), m == 1 ? std::min(1.0, y_hi + pad) : y_hi + pad);
      linear_y->applyNiceNumbers();
    }
    x_axis->setRange(0, x_max > 0 ? x_max : 1);
  }
}

void CompareView::rebuild_table() {
  const ComparisonTable t = comparison_table(runs_);
  table_->clear();
  table_->setColumnCount(static_cast<int>(t.header.size()));
  table_->setRowCount(static_cast<int>(t.rows.size()));
  QStringList header;
  for (const auto& h : t.header) header << QString::fromStdString(h);
  table_->setHorizontalHeaderLabels(header);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      auto* item = cell(QString::fromStdString(t.rows[r][c]));
      if (c == 0) {
        item->setIcon(swatch(colour(r)));
        item->setData(Qt::UserRole, colour(r));
        item->setToolTip(QString::fromStdString(runs_[r].dir));
      }
      table_->setItem(static_cast<int>(r), static_cast<int>(c), item);
    }
  }
  table_->resizeColumnsToContents();
  fit_height(table_);
}

void CompareView::rebuild_scaling() {
  scaling_ = scaling_rows(runs_);
  bool replicas_differ = false;
  for (const auto& row : scaling_) replicas_differ = replicas_differ || row.replicas != scaling_.front().replicas;
  pages_->setTabEnabled(pages_->indexOf(scaling_page_), scaling_.size() >= 2);
  scaling_text_->setText(scaling_.size() < 2 ? "Select two or more runs, ideally the same config on different device counts."
                         : !replicas_differ ? "These runs all use the same number of replicas; the numbers below compare their speed only."
                                            : QString::fromStdString(explain_scaling(scaling_)));

  const QStringList header = {"run", "replicas", "samples/s", "speed-up", "ideal", "efficiency", "step ms",
                              "compute ms", "all-reduce ms", "update ms", "other ms"};
  scaling_table_->clear();
  scaling_table_->setColumnCount(static_cast<int>(header.size()));
  scaling_table_->setRowCount(static_cast<int>(scaling_.size()));
  scaling_table_->setHorizontalHeaderLabels(header);
  for (size_t r = 0; r < scaling_.size(); ++r) {
    const ScalingRow& s = scaling_[r];
    const QStringList cells = {QString::fromStdString(s.run), QString::number(s.replicas),
                               QString::number(s.samples_per_sec, 'f', 0), QString::number(s.speedup, 'f', 2),
                               QString::number(s.ideal_speedup, 'f', 2), QString("%1%").arg(100 * s.efficiency, 0, 'f', 0),
                               QString::number(s.step_ms, 'f', 2), QString::number(s.compute_ms, 'f', 2),
                               QString::number(s.allreduce_ms, 'f', 2), QString::number(s.update_ms, 'f', 2),
                               QString::number(s.other_ms, 'f', 2)};
    for (int c = 0; c < cells.size(); ++c) scaling_table_->setItem(static_cast<int>(r), c, cell(cells[c]));
  }
  scaling_table_->resizeColumnsToContents();
  fit_height(scaling_table_);

  QStringList categories;
  for (const auto& s : scaling_) categories << QString("%1 replica%2").arg(s.replicas).arg(s.replicas == 1 ? "" : "s");
  if (categories.removeDuplicates() > 0) {  // several runs per count: name them
    categories.clear();
    for (const auto& s : scaling_) categories << QString("%1: %2").arg(s.replicas).arg(QString::fromStdString(s.run));
  }
  auto reset = [](QChart* chart) {
    chart->removeAllSeries();
    for (auto* axis : chart->axes()) {
      chart->removeAxis(axis);
      delete axis;
    }
  };
  auto attach = [&categories](QChart* chart, QAbstractBarSeries* series, const QString& y_title, double y_max) {
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    auto* y = new QValueAxis;
    y->setTitleText(y_title);
    y->setLabelFormat(y_max >= 1000 ? "%.0f" : "%.3g");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    y->setRange(0, y_max > 0 && std::isfinite(y_max) ? 1.1 * y_max : 1.0);
    y->applyNiceNumbers();
  };
  QChart* throughput = throughput_chart_->chart();
  reset(throughput);
  auto* bars = new QBarSeries;
  auto* measured = new QBarSet("measured");
  auto* ideal = new QBarSet("perfect scaling");
  measured->setColor(kPalette[0]);
  ideal->setColor(QColor(200, 200, 200));
  const double base = scaling_.empty() ? 0 : scaling_.front().samples_per_sec;
  double top = 0;
  for (const auto& s : scaling_) {
    *measured << s.samples_per_sec;
    *ideal << base * s.ideal_speedup;
    top = std::max({top, s.samples_per_sec, base * s.ideal_speedup});
  }
  bars->append(measured);
  bars->append(ideal);
  attach(throughput, bars, "samples/s", top);
  // Scaling efficiency on its own axis, over the same categories.
  auto* efficiency = new QLineSeries;
  efficiency->setName("efficiency (%)");
  efficiency->setPen(QPen(kPalette[3], 2));
  efficiency->setPointsVisible(true);
  efficiency->setPointLabelsVisible(true);
  efficiency->setPointLabelsFormat("@yPoint%");
  double most = 100;
  for (size_t i = 0; i < scaling_.size(); ++i) {
    efficiency->append(static_cast<double>(i), std::round(100 * scaling_[i].efficiency));
    most = std::max(most, 100 * scaling_[i].efficiency);
  }
  throughput->addSeries(efficiency);
  auto* percent = new QValueAxis;
  percent->setTitleText("efficiency %");
  percent->setLabelFormat("%.0f");
  const double percent_top = 50 * std::ceil(1.1 * most / 50);
  percent->setRange(0, percent_top);
  percent->setTickCount(std::min(9, static_cast<int>(percent_top / 50) + 1));
  throughput->addAxis(percent, Qt::AlignRight);
  efficiency->attachAxis(throughput->axes(Qt::Horizontal)[0]);
  efficiency->attachAxis(percent);

  QChart* breakdown = breakdown_chart_->chart();
  reset(breakdown);
  auto* stacked = new QStackedBarSeries;
  const std::pair<const char*, double ScalingRow::*> phases[] = {{"compute", &ScalingRow::compute_ms},
                                                                 {"all-reduce", &ScalingRow::allreduce_ms},
                                                                 {"update", &ScalingRow::update_ms},
                                                                 {"other", &ScalingRow::other_ms}};
  const QColor phase_colours[] = {kPalette[0], kPalette[3], kPalette[2], kPalette[7]};
  for (size_t p = 0; p < std::size(phases); ++p) {
    auto* set = new QBarSet(phases[p].first);
    set->setColor(phase_colours[p]);
    for (const auto& s : scaling_) *set << s.*(phases[p].second);
    stacked->append(set);
  }
  double longest = 0;
  for (const auto& s : scaling_) longest = std::max(longest, s.compute_ms + s.allreduce_ms + s.update_ms + s.other_ms);
  attach(breakdown, stacked, "ms per step", longest);
}

bool CompareView::export_png(const QString& path) { return ui::export_png(pages_->currentWidget(), path); }

bool CompareView::export_svg(const QString& path) {
  return ui::export_svg(pages_->currentWidget(), path, "Run comparison");
}

QString CompareView::chart_png_base64(QChartView* view) const {
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

bool CompareView::export_report(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
  const bool md = path.endsWith(".md", Qt::CaseInsensitive);
  const bool scaling = scaling_.size() >= 2;
  QString out;
  QTextStream s(&out);
  const QString when = QDateTime::currentDateTimeUtc().toString("yyyy-MM-dd HH:mm 'UTC'");
  const QString x = axis_title(x_);
  std::vector<std::pair<QString, QChartView*>> charts = {{"Loss by " + x, charts_[0]}, {"Accuracy by " + x, charts_[1]}};
  if (scaling) {
    charts.emplace_back("Throughput", throughput_chart_);
    charts.emplace_back("Step time", breakdown_chart_);
  }
  if (md) {
    s << "# Run comparison\n\n" << runs_.size() << " runs, " << when
      << ". Solid lines: training loss/accuracy, smoothed per step; dashed: validation per epoch.\n\n";
    s << markdown_table(table_) << "\n";
    for (const auto& [title, view] : charts)
      s << "## " << title << "\n\n![" << title << "](data:image/png;base64," << chart_png_base64(view) << ")\n\n";
    if (scaling) s << "## Scaling\n\n" << scaling_text_->text() << "\n\n" << markdown_table(scaling_table_);
  } else {
    s << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Run comparison</title>\n"
         "<style>body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}"
         "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
         "img{max-width:100%}</style></head><body>\n";
    s << "<h1>Run comparison</h1>\n<p>" << runs_.size() << " runs, " << when
      << ". Solid lines: training, smoothed per step; dashed: validation per epoch.</p>\n";
    s << html_table(table_);
    for (const auto& [title, view] : charts)
      s << "<h2>" << title.toHtmlEscaped() << "</h2>\n<img alt=\"" << title.toHtmlEscaped()
        << "\" src=\"data:image/png;base64," << chart_png_base64(view) << "\">\n";
    if (scaling) s << "<h2>Scaling</h2>\n<p>" << scaling_text_->text().toHtmlEscaped() << "</p>\n" << html_table(scaling_table_);
    s << "</body></html>\n";
  }
  s.flush();
  return f.write(out.toUtf8()) == out.toUtf8().size() && f.flush();
}

}  // namespace mirror::ui
