#pragma once
// A dock's title bar drawn by widgets that follow the application's font: Qt's own draws the
// title in the font the platform gave docks when the dock was made, so projector type (the
// application font made larger) left a lesson's title at ~10 px. Its title, plain text, elided
// when narrow; buttons to float and close the dock. GUI thread only.

class QDockWidget;
class QLabel;

namespace mirror::ui {

// Gives `dock` such a title bar; returns its title label (object name "dock_title").
QLabel* use_own_title_bar(QDockWidget* dock);

}  // namespace mirror::ui
