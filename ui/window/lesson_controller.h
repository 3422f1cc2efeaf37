#pragma once
// The window's lessons: Help → Lessons…, the Lesson dock beside the charts, a lesson's runs
// trained one after another as a sweep (each run's state in the dock as it begins and as core's
// judge_lesson_run says it went), and its runs opened compared on the lesson's x axis.

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

class QDockWidget;
class QLabel;
class QMainWindow;

namespace mirror {
class Dataset;
struct RunFinished;
struct TrainConfig;
}  // namespace mirror

namespace mirror::ui {

class CompareView;
class LessonPanel;
class RunLauncher;

// What lessons need of the window that holds them, and nothing more (the window fills it in; a
// test can too). Everything here outlives the controller.
struct LessonHost {
  QMainWindow* window = nullptr;    // holds the Lesson dock
  RunLauncher* launcher = nullptr;  // trains the lesson's runs, one sweep
  CompareView* compare = nullptr;   // takes the lesson's x axis
  QLabel* banner = nullptr;         // hidden when the lesson is opened and when its dock closes
  std::function<TrainConfig()> config;                      // the settings the runs start from
  std::function<std::shared_ptr<const Dataset>()> dataset;  // the data loaded, if any
  std::function<void(const QStringList&)> compare_runs;     // the runs compared, given the page
  std::function<void()> show_live;                          // the Live page, as a lesson trains
  std::function<void()> fold_setup;                         // an open lesson gives the pages the width
};

class LessonController : public QObject {
  Q_OBJECT
 public:
  // Lessons in `host.window`: its launcher trains them, its Runs page compares them, its banner
  // says what went wrong (through problem()), and the banner goes when the lesson's dock is
  // closed. GUI thread only.
  explicit LessonController(LessonHost host);

  // Opens a lesson (a name as Help → Lessons… lists it, or the path of a lesson's .json file) in
  // the Lesson dock. Its runs, when recorded before (`mirrortrain lesson`, or an earlier class),
  // open compared at once; otherwise they train now. `max_steps` > 0 caps every run (rehearsals,
  // tests). False, with the reason said through problem(), when it cannot be opened.
  bool open(const QString& name_or_path, int64_t max_steps = 0);
  // Trains the open lesson's runs (again), one after another, then compares them.
  void start();
  // Help → Lessons…: the lessons listed; the one chosen opens.
  void open_dialog();

  // Whether the sweep running is the open lesson's.
  bool training() const { return training_; }
  LessonPanel* panel() const { return panel_; }
  QDockWidget* dock() const { return dock_; }

  // What the window hears of its runs, told here while a lesson trains:
  // a run began (the next of the lesson's runs, when it is training);
  void run_begun();
  // a run ended: its state in the dock; true when it failed as the lesson means it to;
  bool run_ended(const RunFinished& e);
  // a sweep ended: true when it was the lesson's, whose runs are then shown compared.
  bool sweep_ended(const QStringList& dirs, bool cancelled);

 Q_SIGNALS:
  // Something went wrong, for the window's banner: "Cannot open the lesson:" and why.
  void problem(const QString& message, const QString& headline);

 private:
  // Shows the lesson's runs in `dirs` compared, the runs list folded away; `source` says what
  // they are ("Trained just now.").
  void show_runs(const QStringList& dirs, const QString& source);
  // The dock and its panel, made when the first lesson opens.
  void make_dock();
  bool busy() const;  // a run or sweep trains

  LessonHost host_;
  QDockWidget* dock_ = nullptr;
  LessonPanel* panel_ = nullptr;
  int64_t max_steps_ = 0;
  bool training_ = false;  // the sweep running is the open lesson's
  size_t position_ = 0;    // runs of it begun so far
  QStringList dirs_;       // its runs, once trained or found recorded
};

}  // namespace mirror::ui
