// Tested by tests/ui/runs/test_scaling_page.cpp and tests/ui/runs/test_sweeps.cpp.
#include "ui/runs/reading_details.h"

#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/widgets/plain_text.h"

namespace mirror::ui {

ReadingWithDetails::ReadingWithDetails(QWidget* parent) : QWidget(parent) {
  text_ = plain_label({}, /*wrap=*/true);  // the reading may name settings from run.json
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  toggle_ = new QToolButton;
  toggle_->setObjectName("reading_details_toggle");
  toggle_->setText("Details");
  toggle_->setCheckable(true);
  toggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toggle_->setArrowType(Qt::RightArrow);
  toggle_->setAutoRaise(true);
  toggle_->setToolTip("The measurements behind the paragraph: threads, medians, the machine's load");
  details_ = plain_label({}, /*wrap=*/true);
  details_->setObjectName("reading_details");
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_->setVisible(false);
  connect(toggle_, &QToolButton::toggled, this, [this](bool on) {
    toggle_->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
    details_->setVisible(on);
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(text_);
  layout->addWidget(toggle_, 0, Qt::AlignLeft);
  layout->addWidget(details_);
  set_text({});
}

void ReadingWithDetails::set_text(const QString& text, const QString& details) {
  text_->setText(text);
  details_->setText(details);
  toggle_->setVisible(!details.isEmpty());
  details_->setVisible(!details.isEmpty() && toggle_->isChecked());
}

}  // namespace mirror::ui
