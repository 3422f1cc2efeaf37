#include "ui/runs/compare_view.h"

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
#include <QEvent>
#include <QFontMetricsF>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextStream>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

#include "mirror/runs/run_groups.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"
#include "ui/run/run_metrics.h"
#include "ui/runs/compare_report.h"
#include "ui/runs/scaling_page.h"
#include "ui/runs/sweep_page.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/export.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {

// Run `index`'s look for the table, which is the comparison's full legend: a piece of its line
// (colour and dash pattern) with its validation marker on it.
QIcon swatch(size_t index, bool dark) {
  QPixmap pm(30, 14);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(run_pen(index, dark, 2));
  p.drawLine(QPointF(0, 7), QPointF(30, 7));
  p.drawImage(QPointF(15 - 4.5, 7 - 4.5), run_marker_image(index, dark, 9));
  return QIcon(pm);
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  // The runs list folds away to this button while runs are compared: the comparison gets the page.
  list_button_ = new QToolButton;
  list_button_->setObjectName("runs-list-button");
  list_button_->setText("Runs list");
  list_button_->setCheckable(true);
  list_button_->setChecked(true);
  list_button_->setToolTip("Show or fold away the list of every recorded run, to choose what is compared "
                           "(folded, the comparison gets the whole page)");
  connect(list_button_, &QToolButton::clicked, this, &CompareView::list_wanted);
  x_choice_ = new QComboBox;
  for (const XAxisInfo& x : kXAxes) x_choice_->addItem(x.title, static_cast<int>(x.axis));
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
  second_choice_ = new QComboBox;
  second_choice_->setObjectName("second_metric");
  second_choice_->addItem("accuracy", static_cast<int>(Metric::kAccuracy));
  second_choice_->addItem("learning rate", static_cast<int>(Metric::kLearningRate));
  second_choice_->setToolTip("What the right-hand chart shows: accuracy, or the learning rate each step used");
  connect(second_choice_, &QComboBox::currentIndexChanged, this, [this](int i) {
    second_metric_ = static_cast<Metric>(second_choice_->itemData(i).toInt());
    rebuild_curves();
  });
  group_choice_ = new QComboBox;
  group_choice_->setObjectName("compare_group");
  // The bar is one line as wide as a projector's page: its boxes are no wider than a few letters
  // need (the open list shows every item whole).
  for (QComboBox* box : {x_choice_, second_choice_, group_choice_}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(box == group_choice_ ? 8 : 7);  // "each run" whole
  }
  group_choice_->setToolTip("Each run on its own, or the runs that share a setting's value as one line: their mean, "
                            "a band from lowest to highest, and how many runs (N) stand behind it");
  connect(group_choice_, &QComboBox::activated, this, [this](int i) {
    const QStringList chosen = group_choice_->itemData(i).toStringList();
    set_grouping(chosen.value(0).toStdString(), chosen.value(1) == "members");
  });
  // Beside the controls, elided (whole in its tooltip): wrapped on a line of its own, it took
  // three lines of a half-width page in projector type, and the charts' height with them.
  hint_ = new ElidedLabel("Select runs in the list above to compare them.");
  hint_->setObjectName("compare_hint");
  auto* bar = new QHBoxLayout;
  bar->addWidget(list_button_);
  bar->addWidget(new QLabel("x axis:"));
  bar->addWidget(x_choice_);
  bar->addWidget(new QLabel("smoothing:"));
  bar->addWidget(smoothing_choice_);
  bar->addWidget(log_choice_);
  bar->addWidget(new QLabel("right:"));  // short: in projector type the bar sets the page's width
  bar->addWidget(second_choice_);
  bar->addWidget(group_choice_);
  bar->addSpacing(12);
  bar->addWidget(hint_, 1);  // the rest of the bar's line: no line of its own under it

  charts_[0] = new_chart_view("Loss");
  charts_[1] = new_chart_view("Accuracy");
  for (QChartView* v : charts_) v->installEventFilter(this);
  table_ = new QTableWidget;
  table_->setObjectName("compare_table");
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setMinimumHeight(60);
  // A click on a column's header sorts the runs by it (numbers as numbers); until then, in the
  // order compared.
  table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  table_->horizontalHeader()->setSortIndicatorShown(true);
  table_->horizontalHeader()->setSectionsClickable(true);
  connect(table_->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int column) {
    table_->setSortingEnabled(true);
    table_->sortByColumn(column, table_->horizontalHeader()->sortIndicatorOrder());
  });
  auto* chart_row = new QSplitter(Qt::Horizontal);
  chart_row->addWidget(charts_[0]);
  chart_row->addWidget(charts_[1]);
  auto* curves_split = new QSplitter(Qt::Vertical);
  curves_split->addWidget(chart_row);
  curves_split->addWidget(table_);
  curves_split->setStretchFactor(0, 3);
  curves_split->setStretchFactor(1, 1);
  curves_split->setSizes({3000, 1000});  // the curves get three quarters from the start, not the table's size hint
  curves_page_ = curves_split;
  curves_page_->installEventFilter(this);
  connect(curves_split, &QSplitter::splitterMoved, this, [this] { table_dragged_ = true; });

  scaling_page_ = new ScalingPage;

  pages_ = new QTabWidget;
  pages_->addTab(curves_page_, "Curves");
  pages_->addTab(scaling_page_, "Scaling");
  sweep_page_ = new SweepPage;
  pages_->addTab(sweep_page_, "Sweep");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(pages_, 1);
  set_runs({});
}

void CompareView::set_list_shown(bool shown) { list_button_->setChecked(shown); }

QColor CompareView::colour(size_t i) const { return palette_colour(i, dark_); }
QTableWidget* CompareView::scaling_table() const { return scaling_page_->table(); }
QLabel* CompareView::scaling_text() const { return scaling_page_->text(); }

void CompareView::set_runs(std::vector<RunRecord> runs) {
  runs_ = std::move(runs);
  hint_->setText(runs_.empty() ? "Select runs in the list to compare them (Ctrl+click, Shift+click)."
                               : QString("%1. %2")
                                     .arg(QString::fromStdString(counted(static_cast<int64_t>(runs_.size()), "run")),
                                          comparison_key()));
  fill_group_choice();
  rebuild_curves();
  rebuild_table();
  rebuild_scaling();
}

void CompareView::fill_group_choice() {
  std::vector<std::string> keys = differing_config_keys(runs_);
  keys.erase(std::remove(keys.begin(), keys.end(), "model"), keys.end());  // a model is not a value to average over
  // The grouping asked for applies while the runs differ on its setting (runs compared later may).
  const bool applies = std::find(keys.begin(), keys.end(), group_wanted_) != keys.end();
  group_key_ = applies ? group_wanted_ : std::string();
  group_choice_->clear();
  group_choice_->addItem("each run", QStringList{});
  for (const std::string& k : keys) {  // by the setting's last name: the bar is a projector's width
    const QString key = QString::fromStdString(k), name = key.section('.', -1);
    group_choice_->addItem("by " + name, QStringList{key});
    group_choice_->addItem("by " + name + ", runs too", QStringList{key, "members"});
    for (int i : {group_choice_->count() - 2, group_choice_->count() - 1})
      group_choice_->setItemData(i, literal(key), Qt::ToolTipRole);
  }
  group_choice_->setVisible(runs_.size() >= 2 && !keys.empty());
  for (int i = 0; i < group_choice_->count(); ++i) {
    const QStringList d = group_choice_->itemData(i).toStringList();
    if (d.value(0).toStdString() == group_key_ && (d.value(1) == "members") == (group_members_ && applies))
      group_choice_->setCurrentIndex(i);
  }
}

void CompareView::set_grouping(const std::string& key, bool members) {
  group_wanted_ = key;
  group_members_ = members;
  fill_group_choice();  // a key the runs do not differ on draws each run
  rebuild_curves();
  rebuild_table();
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
  dark_ = dark;
  for (QChartView* v : {charts_[0], charts_[1]}) {
    v->chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    apply_chart_fonts(v->chart());
  }
  rebuild_curves();  // a theme recolours the series: give the runs their colours back
  rebuild_table();   // and the swatches their theme's tone
  scaling_page_->set_dark(dark);
}

void CompareView::set_line_width(double width) {
  line_width_ = width;
  rebuild_curves();
}

void CompareView::show_scaling(bool on) { pages_->setCurrentWidget(on ? scaling_page_ : curves_page_); }

void CompareView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Projector type: the table's header and rows grow; its height and columns follow (a height
  // fitted to the smaller font clipped the header).
  if (event->type() == QEvent::FontChange)
    QTimer::singleShot(0, this, [this] {
      table_->resizeColumnsToContents();
      place_table();
    });
}

void CompareView::place_table() {
  auto* split = static_cast<QSplitter*>(curves_page_);
  fit_height(table_);  // its width decides whether a scroll bar takes a row's place
  const int total = split->height() - split->handleWidth();
  if (table_dragged_ || total <= 0) return;
  // Every run's row (the key to the lines) when they take at most two fifths; the charts the rest.
  const int rows = std::min(table_->maximumHeight(), 2 * total / 5);
  split->setSizes({total - rows, rows});
}

bool CompareView::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Resize && (watched == charts_[0] || watched == charts_[1]))
    QMetaObject::invokeMethod(this, &CompareView::fit_legends, Qt::QueuedConnection);  // once the chart has its size
  if (event->type() == QEvent::Resize && watched == curves_page_)  // after the splitter shares out its new size
    QMetaObject::invokeMethod(this, &CompareView::place_table, Qt::QueuedConnection);
  return QWidget::eventFilter(watched, event);
}

void CompareView::rebuild_scaling() {
  scaling_page_->set_runs(runs_);
  sweep_page_->set_runs(runs_);
  pages_->setTabEnabled(pages_->indexOf(scaling_page_), scaling_page_->has_study());
  pages_->setTabEnabled(pages_->indexOf(sweep_page_), sweep_page_->has_sweep());
  // Without a study or a sweep there is one page to show: its tab bar would only take the
  // charts' height.
  pages_->tabBar()->setVisible(scaling_page_->has_study() || sweep_page_->has_sweep());
}

void CompareView::rebuild_table() {
  const ComparisonTable t = comparison_table(runs_);
  table_->setSortingEnabled(false);  // rows stay where they are put while the table fills
  table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  table_->clear();
  table_->setColumnCount(static_cast<int>(t.header.size()));
  table_->setRowCount(static_cast<int>(t.rows.size()));
  QStringList header;
  for (const auto& h : t.header) header << QString::fromStdString(h);
  table_->setHorizontalHeaderLabels(header);
  // Grouped, a run's swatch is its group's line (the charts draw groups, not runs).
  std::vector<size_t> look(runs_.size());
  for (size_t r = 0; r < look.size(); ++r) look[r] = r;
  if (!group_key_.empty()) {
    const auto groups = group_runs(runs_, group_key_);
    for (size_t g = 0; g < groups.size(); ++g)
      for (const size_t r : groups[g].runs) look[r] = g;
  }
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      auto* item = read_only_cell(QString::fromStdString(t.rows[r][c]));
      if (c == 0) {
        item->setIcon(swatch(look[r], dark_));
        item->setData(Qt::UserRole, colour(look[r]));
        item->setToolTip(literal(QString::fromStdString(runs_[r].dir)));
      }
      table_->setItem(static_cast<int>(r), static_cast<int>(c), item);
    }
  }
  table_->resizeColumnsToContents();
  place_table();
}


bool CompareView::export_png(const QString& path) { return ui::export_png(pages_->currentWidget(), path); }

bool CompareView::export_svg(const QString& path) {
  return ui::export_svg(pages_->currentWidget(), path, "Run comparison");
}

bool CompareView::export_report(const QString& path) {
  ComparisonReport report;
  report.runs = runs_.size();
  report.charts = {{charts_[0]->chart()->title(), charts_[0], {}}, {charts_[1]->chart()->title(), charts_[1], {}}};
  report.table = table_;
  if (scaling_page_->has_study()) {
    // The throughput chart's key sits under it on the page, not in a legend: the report copies it.
    report.charts.push_back({"Throughput", scaling_page_->throughput_chart(), scaling_page_->throughput_key()->text()});
    report.charts.push_back({"Step time", scaling_page_->breakdown_chart(), {}});
    report.scaling_text = scaling_page_->text()->text();
    report.scaling_table = scaling_page_->table();
  }
  return write_comparison_report(path, report);
}



}  // namespace mirror::ui
