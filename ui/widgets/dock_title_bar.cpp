// Tested by tests/ui/window/test_projector_and_help.cpp (the lesson dock's title in projector type).
#include "ui/widgets/dock_title_bar.h"

#include <QDockWidget>
#include <QHBoxLayout>
#include <QStyle>
#include <QToolButton>

#include "ui/widgets/plain_text.h"

namespace mirror::ui {

QLabel* use_own_title_bar(QDockWidget* dock) {
  auto* bar = new QWidget;
  auto* title = new ElidedLabel(dock->windowTitle());  // a lesson's title comes from its file
  title->setObjectName("dock_title");
  QFont bold;  // only the weight is set: size and family still follow the application's font
  bold.setBold(true);
  title->setFont(bold);
  const auto button = [dock](QStyle::StandardPixmap icon, const QString& tip) {
    auto* b = new QToolButton;
    b->setIcon(dock->style()->standardIcon(icon, nullptr, dock));
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
  };
  QToolButton* floating = button(QStyle::SP_TitleBarNormalButton, "Float the dock as a window of its own, or put it back");
  QToolButton* close = button(QStyle::SP_TitleBarCloseButton, "Close the dock");
  floating->setObjectName("dock_float");
  close->setObjectName("dock_close");
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(6, 2, 2, 2);
  row->addWidget(title, 1);
  row->addWidget(floating);
  row->addWidget(close);
  QObject::connect(dock, &QDockWidget::windowTitleChanged, title, &QLabel::setText);
  QObject::connect(floating, &QToolButton::clicked, dock, [dock] { dock->setFloating(!dock->isFloating()); });
  QObject::connect(close, &QToolButton::clicked, dock, &QDockWidget::close);
  dock->setTitleBarWidget(bar);
  return title;
}

}  // namespace mirror::ui
