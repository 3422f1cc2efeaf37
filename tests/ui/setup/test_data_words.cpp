// The Data tab's words in the window's own terms: a set loaded without its folder or file names
// the field to fill (core's messages name mirrortrain's --data-dir), and a stand-in's note
// ("reuters is not on this machine...") goes once your own data loads (issue 48, item 10).
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <utility>

#include "own_data_files.h"
#include "ui/run/training_controller.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/own_data_fields.h"
#include "ui/setup/setup_tabs.h"
#include "ui/window/main_window.h"

using namespace mirror;
using namespace mirror::ui;
using namespace mirror::ui::testing;

class DataWordsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  // A set loaded with no folder or file says which field of the window to fill, not
  // mirrortrain's flag (issue 48: "pass --data-dir" in the window).
  void aMissingFolderNamesTheWindowsFieldNotTheFlag() {
    for (const auto& [set, field] : {std::pair{"images", "Folder"}, std::pair{"texts", "Folder"}, std::pair{"table", "File"}}) {
      DatasetPanel panel;
      panel.set_dataset(set);
      QSignalSpy failed(&panel, &DatasetPanel::error);
      panel.load();
      QVERIFY(failed.count() > 0 || failed.wait(30000));
      const QString message = failed.takeFirst().at(0).toString();
      QVERIFY2(!message.contains("--data-dir") && message.contains(QString("the Data tab's %1 field").arg(field)),
               qPrintable(QString("%1: %2").arg(set, message)));
    }
    QCOMPARE(in_window_terms("put the file in /x or pass --data-dir", "Folder"),
             QString("put the file in /x or choose it in the Data tab's Folder field"));
  }

  // A preset whose dataset is missing here says what stands in for it; texts of your own loaded
  // afterwards leave no word of it in the status bar (issue 48: the Reuters note stayed).
  void theStandInsNoteGoesWhenYourOwnDataLoads() {
    QTemporaryDir dir;
    qputenv("KERAS_HOME", (dir.path() + "/keras").toUtf8());  // no Reuters here, and no network
    qputenv("MIRROR_KERAS_ORIGIN", QString("file://%1/nowhere/").arg(dir.path()).toUtf8());
    make_text_folder(dir.path() + "/texts", 6);
    MainWindow w(/*restore_settings=*/false);
    w.show();
    const auto status = [&w] {
      QString all;
      for (const QLabel* l : w.statusBar()->findChildren<QLabel*>()) all += l->text() + "\n";
      return all;
    };
    w.setup()->apply_preset("seed-reuters");
    QVERIFY2(status().contains("stands in for it"), qPrintable(status()));
    wait_loaded(*w.setup()->dataset_panel());
    drop_on(*w.setup()->dataset_panel(), dir.path() + "/texts");
    wait_loaded(*w.setup()->dataset_panel());
    QCOMPARE(w.setup()->dataset_panel()->options().name, std::string("texts"));
    QVERIFY2(!status().contains("stands in for it"), qPrintable(status()));
    qunsetenv("KERAS_HOME");
    qunsetenv("MIRROR_KERAS_ORIGIN");
  }
};

QTEST_MAIN(DataWordsTest)
#include "test_data_words.moc"
