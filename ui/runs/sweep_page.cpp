// Tested by tests/ui/runs/test_compare_view.cpp (the Sweep page of a learning rate x seed sweep).
#include "ui/runs/sweep_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {
// An axis' lowest and highest value (categories: 0 and their count - 1); equal when constant.
std::pair<double, double> range_of(const SettingAxis& a) {
  double low = INFINITY, high = -INFINITY;
  for (double v : a.values)
    if (!std::isnan(v)) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
  if (!std::isfinite(low)) return {0, 1};
  return {low, high};
}

// A setting's name as an axis shows it: its last part ("learning_rate" of optimizer.learning_rate).
QString short_name(const std::string& key) { return QString::fromStdString(key).section('.', -1); }

QString value_text(const SettingAxis& a, double v) {
  if (std::isnan(v)) return "-";
  if (!a.numeric) return QString::fromStdString(a.categories.at(static_cast<size_t>(v)));
  return QString::number(v, 'g', 4);
}
}  // namespace

ParallelCoordinates::ParallelCoordinates(QWidget* parent) : QWidget(parent) {
  setObjectName("parallel_coordinates");
  setMouseTracking(true);
}

void ParallelCoordinates::set_axes(std::vector<SettingAxis> axes, std::vector<QString> names, bool higher_better) {
  axes_ = std::move(axes);
  names_ = std::move(names);
  higher_better_ = higher_better;
  update();
}

QRectF ParallelCoordinates::plot_rect() const {
  const QFontMetricsF fm(font());
  // Room above for each axis' two-line title, below for its lowest value, at the sides for labels.
  const double side = fm.horizontalAdvance("0.0000") + 8;
  return QRectF(side, 3 * fm.height() + 6, std::max(10.0, width() - 2 * side), std::max(10.0, height() - 5 * fm.height() - 12));
}

std::optional<QPointF> ParallelCoordinates::point(size_t run, size_t axis) const {
  if (axis >= axes_.size() || run >= axes_[axis].values.size()) return std::nullopt;
  const double v = axes_[axis].values[run];
  if (std::isnan(v)) return std::nullopt;
  const QRectF r = plot_rect();
  const double x = axes_.size() == 1 ? r.center().x() : r.left() + r.width() * static_cast<double>(axis) / static_cast<double>(axes_.size() - 1);
  const auto [low, high] = range_of(axes_[axis]);
  const double t = high > low ? (v - low) / (high - low) : 0.5;
  return QPointF(x, r.bottom() - t * r.height());
}

QColor ParallelCoordinates::colour(size_t run) const {
  const SettingAxis& result = axes_.back();
  const auto [low, high] = range_of(result);
  const double v = run < result.values.size() ? result.values[run] : NAN;
  if (std::isnan(v)) return QColor(150, 150, 150);
  double good = high > low ? (v - low) / (high - low) : 1.0;
  if (!higher_better_) good = 1 - good;
  const QColor worst = palette_colour(1), best = palette_colour(0);
  return QColor::fromRgbF(worst.redF() + good * (best.redF() - worst.redF()),
                          worst.greenF() + good * (best.greenF() - worst.greenF()),
                          worst.blueF() + good * (best.blueF() - worst.blueF()));
}

void ParallelCoordinates::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  if (axes_.empty()) return;
  const QRectF r = plot_rect();
  const QFontMetricsF fm(font());
  // The runs, the best drawn last (on top).
  std::vector<size_t> order(names_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const SettingAxis& result = axes_.back();
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double va = result.values[a], vb = result.values[b];
    if (std::isnan(va) || std::isnan(vb)) return std::isnan(va) && !std::isnan(vb);
    return higher_better_ ? va < vb : va > vb;
  });
  for (size_t run : order) {
    QPainterPath line;
    bool open = false;
    for (size_t a = 0; a < axes_.size(); ++a) {
      const auto at = point(run, a);
      if (!at) {
        open = false;
        continue;
      }
      if (open) line.lineTo(*at);
      else line.moveTo(*at);
      open = true;
    }
    p.setPen(QPen(colour(run), 2));
    p.drawPath(line);
  }
  // The axes over the lines: each with its name and importance above, its range at its ends.
  p.setPen(QPen(palette().color(QPalette::Text), 1));
  for (size_t a = 0; a < axes_.size(); ++a) {
    const SettingAxis& axis = axes_[a];
    const double x = axes_.size() == 1 ? r.center().x() : r.left() + r.width() * static_cast<double>(a) / static_cast<double>(axes_.size() - 1);
    p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    const QString second = axis.importance ? QString("importance %1").arg(*axis.importance, 0, 'f', 2)
                                           : (a + 1 == axes_.size() ? QString("the result") : QString());
    const double w = std::max(fm.horizontalAdvance(short_name(axis.key)), fm.horizontalAdvance(second)) + 4;
    const double left = std::clamp(x - w / 2, 0.0, width() - w);
    p.drawText(QRectF(left, 2, w, fm.height()), Qt::AlignHCenter, short_name(axis.key));
    p.drawText(QRectF(left, 2 + fm.height(), w, fm.height()), Qt::AlignHCenter, second);
    const auto [low, high] = range_of(axis);
    if (axis.numeric) {
      const QString top = QString::number(high, 'g', 4), bottom = QString::number(low, 'g', 4);
      p.drawText(QRectF(x - 60, r.top() - fm.height() - 2, 120, fm.height()), Qt::AlignHCenter, top);
      p.drawText(QRectF(x - 60, r.bottom() + 2, 120, fm.height()), Qt::AlignHCenter, bottom);
    } else {
      for (size_t c = 0; c < axis.categories.size(); ++c) {
        const double t = high > low ? (static_cast<double>(c) - low) / (high - low) : 0.5;
        p.drawText(QRectF(x + 4, r.bottom() - t * r.height() - fm.height() / 2, 200, fm.height()), Qt::AlignLeft,
                   QString::fromStdString(axis.categories[c]));
      }
    }
  }
}

bool ParallelCoordinates::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  const QPointF at = static_cast<QHelpEvent*>(e)->pos();
  // The run whose line passes nearest, read at the axis nearest the pointer.
  size_t best_run = names_.size();
  double best = 12;
  for (size_t run = 0; run < names_.size(); ++run)
    for (size_t a = 0; a < axes_.size(); ++a)
      if (const auto p = point(run, a); p && std::hypot(p->x() - at.x(), p->y() - at.y()) < best) {
        best = std::hypot(p->x() - at.x(), p->y() - at.y());
        best_run = run;
      }
  if (best_run == names_.size()) {
    QToolTip::hideText();
    e->ignore();
    return true;
  }
  QStringList lines = {names_[best_run]};
  for (const SettingAxis& a : axes_)
    lines << QString("%1: %2").arg(QString::fromStdString(a.key), value_text(a, a.values[best_run]));
  QToolTip::showText(static_cast<QHelpEvent*>(e)->globalPos(), literal(lines.join("\n")), this);
  return true;
}

SweepPage::SweepPage(QWidget* parent) : QWidget(parent) {
  metric_ = new QComboBox;
  metric_->setObjectName("sweep_metric");
  for (SweepMetric m : {SweepMetric::kBestValAccuracy, SweepMetric::kFinalValLoss, SweepMetric::kFinalLoss})
    metric_->addItem(sweep_metric_name(m), static_cast<int>(m));
  metric_->setToolTip("The result the lines are coloured by and each setting's importance is measured against");
  connect(metric_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  plot_ = new ParallelCoordinates;
  importance_ = plain_label({}, /*wrap=*/true);
  importance_->setObjectName("sweep_importance");
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel("judged by"));
  bar->addWidget(metric_);
  bar->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(plot_, 1);
  layout->addWidget(importance_);
}

void SweepPage::set_runs(const std::vector<RunRecord>& runs) {
  runs_ = runs;
  rebuild();
}

void SweepPage::rebuild() {
  const auto metric = static_cast<SweepMetric>(metric_->currentData().toInt());
  std::vector<SettingAxis> axes = setting_axes(runs_, metric);
  has_sweep_ = runs_.size() >= 3 && axes.size() >= 2;
  std::vector<QString> names;
  for (const RunRecord& r : runs_) names.push_back(QString::fromStdString(r.display_name()));
  // The settings, most important first (by the size of their correlation), in words.
  std::vector<const SettingAxis*> ranked;
  for (const SettingAxis& a : axes)
    if (a.importance) ranked.push_back(&a);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const SettingAxis* a, const SettingAxis* b) { return std::abs(*a->importance) > std::abs(*b->importance); });
  QStringList parts;
  for (const SettingAxis* a : ranked)
    parts << QString("%1 %2%3").arg(QString::fromStdString(a->key)).arg(*a->importance >= 0 ? "+" : "\u2212")
                 .arg(std::abs(*a->importance), 0, 'f', 2);
  const QString what = QString::fromLatin1(sweep_metric_name(metric));
  importance_->setText(parts.isEmpty()
                           ? QString("Importance needs at least three runs with a %1 and a numeric setting that varies.").arg(what)
                           : QString("Importance, Spearman's rank correlation with %1 over these runs (+1: the larger "
                                     "the setting, the larger the result; near 0: no pattern): %2. A sweep this small "
                                     "shows a tendency, not a law.")
                                 .arg(what, parts.join(", ")));
  plot_->set_axes(std::move(axes), std::move(names), metric == SweepMetric::kBestValAccuracy);
}

}  // namespace mirror::ui
