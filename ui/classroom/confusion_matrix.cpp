// Tested by tests/ui/classroom/test_learned_view.cpp.
#include "ui/classroom/confusion_matrix.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {
// Longest row label drawn in full; longer names are elided (the tooltip has them whole).
constexpr int kLabelChars = 18;
// The smallest type the cells' numbers are drawn in; smaller cells go without numbers.
constexpr double kSmallestPoints = 6.5;

// Black or white, whichever reads better on `fill` (WCAG's relative luminance: the two contrast
// alike at 0.179).
QColor readable_on(const QColor& fill) {
  const auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  const double y = 0.2126 * linear(fill.redF()) + 0.7152 * linear(fill.greenF()) + 0.0722 * linear(fill.blueF());
  return y > 0.179 ? Qt::black : Qt::white;
}
}  // namespace

QColor ConfusionMatrixView::answer_colour(bool right) { return right ? QColor(0, 114, 178) : QColor(230, 159, 0); }

ConfusionMatrixView::ConfusionMatrixView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ConfusionMatrixView::set_evaluation(const Evaluation& evaluation, const QStringList& class_names) {
  ev_ = evaluation;
  names_ = class_names;
  if (selected_.first >= ev_.classes || selected_.second >= ev_.classes) selected_ = {-1, -1};
  update();
}

void ConfusionMatrixView::clear() {
  ev_ = Evaluation{};
  selected_ = {-1, -1};
  update();
}

void ConfusionMatrixView::set_normalised(bool on) {
  normalised_ = on;
  update();
}

void ConfusionMatrixView::select(int64_t label, int64_t predicted) {
  if (label < 0 || predicted < 0 || label >= ev_.classes || predicted >= ev_.classes) label = predicted = -1;
  selected_ = {label, predicted};
  update();
  Q_EMIT cell_selected(label, predicted);
}

QString ConfusionMatrixView::row_name(int64_t k) const {
  return k < names_.size() ? names_[static_cast<int>(k)] : QString::number(k);
}

QRectF ConfusionMatrixView::grid_rect() const {
  const QFontMetrics fm = fontMetrics();
  int label_width = fm.horizontalAdvance("0");
  for (int64_t k = 0; k < ev_.classes; ++k)
    label_width = std::max(label_width, fm.horizontalAdvance(row_name(k).left(kLabelChars)));
  // Left: the axis title (drawn turned) and the row names; top: the axis title and the column numbers.
  // (+2: the row names are elided to this width, and a name measured exactly can round to "…".)
  const double left = fm.height() + 6 + std::min(label_width + 2, width() / 3) + 6;
  const double top = 2 * fm.height() + 8;
  const double side = std::max(0.0, std::min(width() - left - 4, height() - top - 4));
  return {left, top, side, side};
}

double ConfusionMatrixView::cell_size() const { return ev_.classes > 0 ? grid_rect().width() / static_cast<double>(ev_.classes) : 0; }

std::pair<int64_t, int64_t> ConfusionMatrixView::cell_at(QPoint pos) const {
  const QRectF g = grid_rect();
  if (ev_.classes < 1 || !g.contains(pos)) return {-1, -1};
  const double s = cell_size();
  const auto row = std::min<int64_t>(ev_.classes - 1, static_cast<int64_t>((pos.y() - g.top()) / s));
  const auto col = std::min<int64_t>(ev_.classes - 1, static_cast<int64_t>((pos.x() - g.left()) / s));
  return {row, col};
}

QPoint ConfusionMatrixView::cell_center(int64_t label, int64_t predicted) const {
  const QRectF g = grid_rect();
  const double s = cell_size();
  return QPointF(g.left() + (static_cast<double>(predicted) + 0.5) * s, g.top() + (static_cast<double>(label) + 0.5) * s).toPoint();
}

QString ConfusionMatrixView::cell_text(int64_t label, int64_t predicted) const {
  const int64_t n = ev_.count(label, predicted);
  if (!normalised_) return n > 0 ? QString::number(n) : QString();
  const int64_t row = ev_.label_total(label);
  if (row == 0 || n == 0) return {};
  return QString::number(100.0 * static_cast<double>(n) / static_cast<double>(row), 'f', 0) + "%";
}

QString ConfusionMatrixView::cell_tooltip(int64_t label, int64_t predicted) const {
  const int64_t n = ev_.count(label, predicted);
  const int64_t row = ev_.label_total(label);
  const QString share = row > 0 ? QString(" (%1% of %2)").arg(100.0 * static_cast<double>(n) / static_cast<double>(row), 0, 'f', 1).arg(row) : QString();
  QString text = label == predicted
                     ? QString("%1: %2 %3 right%4").arg(row_name(label)).arg(n).arg(n == 1 ? "example" : "examples").arg(share)
                     : QString("True %1, predicted %2: %3 %4%5")
                           .arg(row_name(label), row_name(predicted))
                           .arg(n)
                           .arg(n == 1 ? "example" : "examples")
                           .arg(share);
  const auto examples = ev_.examples_in(label, predicted);
  if (!examples.empty()) {
    QStringList ids;
    for (const auto* e : examples)
      ids << QString("#%1 (%2%)").arg(e->index).arg(100.0 * static_cast<double>(e->probabilities.front()), 0, 'f', 0);
    text += QString("\nFor example %1 of the validation split; click to see them.").arg(ids.join(", "));
  }
  return text;
}

void ConfusionMatrixView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QColor text = palette().color(QPalette::Text);
  if (ev_.classes < 1) {
    p.setPen(text);
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
               "The confusion matrix appears after the first validation: rows are the true classes, columns what "
               "the model predicted.");
    return;
  }
  const QRectF g = grid_rect();
  const double s = cell_size();
  const QFontMetrics fm = fontMetrics();
  // Axis titles.
  p.setPen(text);
  p.drawText(QRectF(g.left(), 0, g.width(), fm.height()), Qt::AlignHCenter, "predicted class");
  p.save();
  p.translate(fm.height() - 2, g.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-g.height() / 2, -fm.height(), g.height(), fm.height()), Qt::AlignHCenter, "true class");
  p.restore();
  // Column numbers and row names, every one when they fit, else every n-th.
  const int every = std::max(1, static_cast<int>(std::ceil((fm.height() + 2) / std::max(1.0, s))));
  for (int64_t k = 0; k < ev_.classes; k += every) {
    const double at = static_cast<double>(k) * s;
    p.drawText(QRectF(g.left() + at - s, fm.height() + 4, 3 * s, fm.height()), Qt::AlignHCenter, QString::number(k));
    const QString name = fm.elidedText(row_name(k), Qt::ElideRight, static_cast<int>(g.left() - fm.height() - 12));
    p.drawText(QRectF(fm.height() + 6, g.top() + at + s / 2 - fm.height() / 2.0, g.left() - fm.height() - 12, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, name);
  }
  // Cells: blue for right answers, orange for mistakes (Okabe and Ito's pair that colour-blind
  // viewers tell apart, where green and red merge); the share of the row sets the strength
  // (or, for counts, the share of the largest cell off or on the diagonal).
  int64_t max_off = 1, max_on = 1;
  for (int64_t t = 0; t < ev_.classes; ++t)
    for (int64_t q = 0; q < ev_.classes; ++q) (t == q ? max_on : max_off) = std::max(t == q ? max_on : max_off, ev_.count(t, q));
  const QColor right = answer_colour(true), wrong = answer_colour(false), base = palette().color(QPalette::Base);
  // Numbers in the cells when they fit: in the widget's font, or down to kSmallestPoints.
  QString widest;
  for (int64_t t = 0; t < ev_.classes; ++t)
    for (int64_t q = 0; q < ev_.classes; ++q)
      if (const QString c = cell_text(t, q); c.size() > widest.size()) widest = c;
  QFont cell_font = font();
  const auto fits = [&](const QFont& f) {
    const QFontMetrics m(f);
    return s >= m.horizontalAdvance(widest) + 4 && s >= m.height() + 2;
  };
  while (!fits(cell_font) && cell_font.pointSizeF() > kSmallestPoints) cell_font.setPointSizeF(cell_font.pointSizeF() - 0.5);
  const bool numbers = fits(cell_font);
  p.setFont(cell_font);
  for (int64_t t = 0; t < ev_.classes; ++t) {
    const int64_t row = ev_.label_total(t);
    for (int64_t q = 0; q < ev_.classes; ++q) {
      const int64_t n = ev_.count(t, q);
      const QRectF cell(g.left() + static_cast<double>(q) * s, g.top() + static_cast<double>(t) * s, s, s);
      double strength = 0;
      if (n > 0)
        strength = normalised_ ? static_cast<double>(n) / static_cast<double>(std::max<int64_t>(1, row))
                               : static_cast<double>(n) / static_cast<double>(t == q ? max_on : max_off);
      strength = n > 0 ? 0.12 + 0.88 * std::sqrt(strength) : 0;  // a single mistake still shows
      const QColor hue = t == q ? right : wrong;
      const QColor fill = QColor::fromRgbF(static_cast<float>(base.redF() + (hue.redF() - base.redF()) * strength),
                                           static_cast<float>(base.greenF() + (hue.greenF() - base.greenF()) * strength),
                                           static_cast<float>(base.blueF() + (hue.blueF() - base.blueF()) * strength));
      p.fillRect(cell, fill);
      if (numbers && n > 0) {
        p.setPen(readable_on(fill));
        p.drawText(cell, Qt::AlignCenter, cell_text(t, q));
      }
    }
  }
  p.setFont(font());
  p.setPen(QPen(palette().color(QPalette::Mid), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(g);
  if (selected_.first >= 0) {
    p.setPen(QPen(palette().color(QPalette::Highlight), 3));
    p.drawRect(QRectF(g.left() + static_cast<double>(selected_.second) * s, g.top() + static_cast<double>(selected_.first) * s, s, s));
  }
}

bool ConfusionMatrixView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const auto [t, q] = cell_at(help->pos());
    if (t >= 0) QToolTip::showText(help->globalPos(), literal(cell_tooltip(t, q)), this);  // names from the run's files
    else if (!toolTip().isEmpty()) QToolTip::showText(help->globalPos(), toolTip(), this);
    else QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

void ConfusionMatrixView::mousePressEvent(QMouseEvent* event) {
  const auto [t, q] = cell_at(event->position().toPoint());
  // Clicking the selected cell again clears the selection.
  if (t >= 0 && std::pair{t, q} == selected_) select(-1, -1);
  else select(t, q);
}

}  // namespace mirror::ui
