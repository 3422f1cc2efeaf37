// mirrorbench: the Mirror Workbench desktop window. Wiring only.
//
//   mirrorbench [--preset NAME] [--train] [--screenshot FILE --after SECONDS]
//
// --train starts training as soon as the dataset is loaded; --screenshot saves the window as a
// PNG after the given time and quits (used for documentation and checks under Xvfb).
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include "ui/dataset_panel.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("MirrorWorkbench");
  QApplication::setApplicationName("mirrorbench");
  QCommandLineParser cli;
  cli.setApplicationDescription("Mirror Workbench: see and teach mirrored data-parallel training");
  cli.addHelpOption();
  const QCommandLineOption preset("preset", "Start from this preset.", "name");
  const QCommandLineOption train("train", "Start training once the dataset is loaded.");
  const QCommandLineOption shot("screenshot", "Save the window as a PNG file, then quit.", "file");
  const QCommandLineOption after("after", "Seconds before the screenshot (default 10).", "seconds", "10");
  cli.addOptions({preset, train, shot, after});
  cli.process(app);

  mirror::ui::MainWindow window;
  window.resize(1440, 900);
  if (cli.isSet(preset)) window.apply_preset(cli.value(preset));
  window.show();
  if (cli.isSet(train)) {
    auto* poll = new QTimer(&window);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, poll] {
      if (window.dataset_panel()->loading()) return;
      poll->stop();
      window.start_training();
    });
    poll->start(100);
  }
  if (cli.isSet(shot)) {
    QTimer::singleShot(static_cast<int>(cli.value(after).toDouble() * 1000), &window, [&window, path = cli.value(shot)] {
      const bool ok = window.grab().save(path, "PNG");
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return app.exec();
}
