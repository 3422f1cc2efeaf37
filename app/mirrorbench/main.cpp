// mirrorbench: the Mirror Workbench desktop window. Wiring only.
//
//   mirrorbench [--preset NAME] [--train | --scaling-study] [--compare DIR...] [--x-axis step|epoch|samples|time|wall]
//               [--group-by SETTING]
//               [--pace STEPS_PER_SECOND] [--lesson NAME|FILE] [--presentation] [--view live|strategy|learned|runs]
//               [--screenshot FILE --after SECONDS]
//
// --train starts training as soon as the dataset is loaded, --scaling-study runs the scaling
// study instead; --compare opens the Runs page with these run directories compared; --lesson
// opens a lesson (its recorded runs, or trains them once the window is up);
// --screenshot saves the window as a PNG after the given time and quits (used for
// documentation and checks under Xvfb).
#include <QApplication>
#include <QCommandLineParser>
#include <QAction>
#include <QIcon>
#include <QLabel>
#include <QMessageBox>
#include <QTabWidget>
#include <QTextDocumentFragment>
#include <QTimer>

#include <cstdio>
#include <cstring>
#include <memory>

#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/x_axis.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/version.h"
#include "ui/runs/compare_view.h"
#include "ui/setup/dataset_panel.h"
#include "ui/run/run_launcher.h"
#include "ui/setup/setup_tabs.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"

namespace {

// --help and --version answer without a display (a terminal over ssh; help2man at build time
// makes the man page from them), so they get a QCoreApplication instead of a window's QApplication.
bool text_only(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
      if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

// Prints "mirrorbench: <text>" to stderr: the text of a label or tooltip (rich text read as what
// it shows), with the control characters of names from files made visible.
void say(const QString& text) {
  const QString plain = Qt::mightBeRichText(text) ? QTextDocumentFragment::fromHtml(text).toPlainText() : text;
  std::fprintf(stderr, "mirrorbench: %s\n",
               mirror::terminal_text(plain.toStdString(), mirror::LineBreaks::kKeep).c_str());
}

// Why runs and lessons have no private folder (no HOME and no home in the password database),
// or empty: the window would otherwise fail at its first run or lesson.
QString no_private_folders() {
  try {
    mirror::default_runs_root();
    mirror::lessons_dir();
    return {};
  } catch (const mirror::ConfigError& e) {
    return QString::fromStdString(e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::unique_ptr<QCoreApplication> app(text_only(argc, argv) ? new QCoreApplication(argc, argv)
                                                                    : new QApplication(argc, argv));
  QCoreApplication::setOrganizationName("MirrorWorkbench");
  QCoreApplication::setApplicationName("mirrorbench");
  QCoreApplication::setApplicationVersion(mirror::kVersion);
  QCommandLineParser cli;
  cli.setApplicationDescription("Mirror Workbench: see and teach mirrored data-parallel training");
  cli.addHelpOption();
  cli.addVersionOption();
  const QCommandLineOption preset("preset", "Start from this preset.", "name");
  const QCommandLineOption train("train", "Start training once the dataset is loaded.");
  const QCommandLineOption shot("screenshot", "Save the window as a PNG file, then quit.", "file");
  const QCommandLineOption after("after", "Seconds before the screenshot (default 10).", "seconds", "10");
  const QCommandLineOption scaling("scaling-study", "Run the scaling study (1, 2, 4 logical devices) once loaded.");
  const QCommandLineOption compare("compare", "Compare this recorded run (repeatable).", "dir");
  const QCommandLineOption x_axis("x-axis",
                                  QString("The comparison's x axis: %1 (time: training time).")
                                      .arg(QString::fromStdString(mirror::x_axis_names())),
                                  "axis", mirror::x_axis_name(mirror::XAxis::kStep));
  const QCommandLineOption group_by("group-by",
                                    "Compared runs that share this setting's value as one line, their mean in a band "
                                    "from lowest to highest (e.g. optimizer.learning_rate).",
                                    "setting");
  const QCommandLineOption pace("pace", "Demo pace: at most this many steps a second (0: full speed).", "steps");
  const QCommandLineOption lesson("lesson", "Open this lesson (a name from Help → Lessons, or a lesson's .json file).", "name");
  const QCommandLineOption present("presentation", "Start in the presentation layout (View → Presentation, F5).");
  const QCommandLineOption view("view", "Open on this page: live, strategy, learned or runs (e.g. the Strategy tab for a class).", "page");
  cli.addOptions({preset, train, scaling, compare, x_axis, group_by, shot, after, pace, lesson, present, view});
  cli.process(*app);

  // The icon theme's icon when the package installed it, else the same SVG built in; the desktop
  // file's name lets Wayland compositors match the window to its menu entry.
  QApplication::setWindowIcon(QIcon::fromTheme("mirror-workbench", QIcon(":/icons/mirror-workbench.svg")));
  QGuiApplication::setDesktopFileName("org.mirrorworkbench.MirrorBench");
  if (const QString why = no_private_folders(); !why.isEmpty()) {
    say(why);
    QMessageBox box(QMessageBox::Critical, "Mirror Workbench cannot start", why);
    box.setTextFormat(Qt::PlainText);
    box.exec();
    return 2;
  }
  mirror::ui::MainWindow window;
  int view_index = -1;
  if (cli.isSet(view)) {
    QStringList pages;
    for (int i = 0; i < window.views()->count(); ++i) {
      const QString name = window.views()->tabText(i).remove('&').toLower();
      pages << name;
      if (name == cli.value(view).toLower()) view_index = i;
    }
    if (view_index < 0) {
      std::fprintf(stderr, "mirrorbench: --view %s: no such page; give one of %s\n", qPrintable(cli.value(view)),
                   qPrintable(pages.join(", ")));
      return 2;
    }
  }
  if (cli.isSet(preset)) window.setup()->apply_preset(cli.value(preset));
  if (cli.isSet(pace)) {
    bool ok = false;
    const double steps = cli.value(pace).toDouble(&ok);
    if (!ok || steps < 0) {
      std::fprintf(stderr, "mirrorbench: --pace %s: give steps per second (0 for full speed)\n", qPrintable(cli.value(pace)));
      return 2;
    }
    window.set_pace(steps);
  }
  window.show();
  if (cli.isSet(present)) window.presentation_action()->setChecked(true);
  if (const auto axis = mirror::x_axis_named(cli.value(x_axis).toStdString())) window.compare_view()->set_x_axis(*axis);
  if (cli.isSet(group_by)) window.compare_view()->set_grouping(cli.value(group_by).toStdString());
  if (cli.isSet(compare)) window.compare_runs(cli.values(compare));
  if (view_index >= 0) window.views()->setCurrentIndex(view_index);
  if (cli.isSet(lesson) && !window.lessons()->open(cli.value(lesson)))
    say(QString("--lesson %1: %2").arg(cli.value(lesson), window.error_banner()->text()));
  if (cli.isSet(train) || cli.isSet(scaling)) {
    auto* poll = new QTimer(&window);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, view_index, study = cli.isSet(scaling)] {
      if (window.setup()->dataset_panel()->loading()) return;
      poll->stop();
      if (study) window.start_scaling_study();
      else window.start_training();
      if (view_index >= 0) window.views()->setCurrentIndex(view_index);  // starting shows the Live page
      if (!window.launcher()->running() && !window.launcher()->sweeping())  // say why rather than sit there
        say(QString("%1 did not start: %2")
                .arg(study ? "--scaling-study" : "--train",
                     window.train_blocked_label()->text().isEmpty() ? window.train_action()->toolTip()
                                                                     : window.train_blocked_label()->text()));
    });
    poll->start(100);
  }
  if (cli.isSet(shot)) {
    QTimer::singleShot(static_cast<int>(cli.value(after).toDouble() * 1000), &window, [&window, path = cli.value(shot)] {
      const bool ok = window.grab().save(path, "PNG");
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return QApplication::exec();
}
