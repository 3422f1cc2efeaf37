#include "ui/window/help.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QKeySequence>
#include <QRegularExpression>
#include <QScreen>
#include <QShortcut>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "mirror/runs/lesson.h"

namespace mirror::ui {

namespace {
QString plain(QString text) {
  text.remove(QRegularExpression("&(?!&)"));
  text.remove("…");
  return text.trimmed();
}

// "Five are built in: <i>Broken sync</i>, ...", read from the lessons themselves.
QString built_in_lessons() {
  QStringList titles;
  for (const Lesson& l : lessons())
    if (l.source == "built-in") titles << "<i>" + QString::fromStdString(l.title).toHtmlEscaped() + "</i>";
  static const char* kWords[] = {"None are", "One is", "Two are", "Three are", "Four are", "Five are",
                                 "Six are",  "Seven are", "Eight are", "Nine are", "Ten are"};
  const QString count = titles.size() < 11 ? kWords[titles.size()] : QString("%1 are").arg(titles.size());
  return count + " built in" + (titles.isEmpty() ? "." : ": " + titles.join(", ") + ".");
}

QString getting_started() {
  return R"(<h2>Getting started</h2>
<p>Mirror Workbench trains one model on several devices the way TensorFlow's MirroredStrategy does:
every device holds a copy (a <i>replica</i>) of the model, each step's batch is split between the replicas,
each computes gradients on its share, the gradients are summed across replicas (an <i>all-reduce</i>), and
every replica applies the same update, so the copies stay identical.</p>
<h3>1. Set up a run: the four tabs on the left</h3>
<ul>
<li><b>Data</b>: the dataset. The built-in ones (spirals, blobs, synthetic text) need nothing; MNIST,
Fashion-MNIST and Reuters are read from Keras' files or a folder you open (File → Open dataset folder).</li>
<li><b>Model</b>: start from a preset, or edit the layers. The summary under the table shows each layer's
output shape and parameters, and says at once when a layer does not fit the one before it.</li>
<li><b>Training</b>: optimizer, learning rate and its schedule, batch size (the <i>global</i> batch, split
between the replicas), epochs, early stopping.</li>
<li><b>Devices</b>: the CPU or GPUs, how many <i>logical</i> devices to carve out of each (replicas that
share one physical device), and how many processes to train on.</li>
</ul>
<h3>2. Train and watch</h3>
<p>Press <b>Train</b> (Ctrl+Return). The <b>Live</b> page draws loss and accuracy as the steps go, and the
replica view shows each replica's share of the batch and the all-reduce that joins them. <b>Pause</b>
holds training between steps; <b>Stop</b> ends it after the current step, keeping a checkpoint so the run
can be resumed. <b>Pace</b> slows a small model down (say 2 steps per second) so a class can watch it learn;
the numbers are the same at any pace.</p>
<p>The <b>Strategy</b> page draws one mirrored step from the run's own numbers: the batch split into shards,
each replica's forward and backward, the all-reduce that sums their gradients, the same update on every
copy and the checksums that prove the copies identical. Choose <b>Step by step</b> there and press
<b>Space</b>: the run takes exactly one step, and the page walks through it, one sentence per phase. The
<b>Learned</b> page (Ctrl+E) shows what the model has learned at each validation: the confusion matrix
(hover or click a cell for its examples), accuracy per class, the most confused classes and, for 2-D
data, the decision regions.</p>
<h3>3. Compare</h3>
<p>Every run is recorded. The <b>Runs</b> page (Ctrl+R) lists them: rename, tag and annotate them, resume a
stopped one, or select two or more to see their curves together and the settings on which they differ.
<b>Run → Sweep</b> trains every combination of learning rates, batch sizes and device counts;
<b>Run → Scaling study</b> trains the same settings on 1, 2 and 4 logical devices, several times each, and
shows the throughput, its spread and where each step's time goes. <b>Runs → Export comparison</b> writes
the comparison as an HTML or Markdown report.</p>
<h3>4. In front of a class</h3>
<p><b>Help → Lessons…</b> (Ctrl+Shift+L) opens a ready-made lesson: a short text beside the charts and the
runs that show what it says, trained one after another and opened compared. )" + built_in_lessons() + R"( A lesson's runs, once recorded (trained in the window, or beforehand with
<code>mirrortrain lesson NAME</code>), open at once the next time. Your own lessons are JSON files in the
lessons folder; the README shows the form.</p>
<p><b>View → Presentation</b> (F5) shows only the pages, in large type: Page Down and Page Up (a presenter's
clicker) change the page, Space steps on the Strategy page, Esc leaves. <b>View → Projector mode</b>
(Ctrl+Shift+P) enlarges every text and line; <b>View → Full screen</b> (F11) gives the window the whole screen;
<b>View → Dark theme</b> suits a dark room. <b>File → Export this view</b> (Ctrl+Shift+E) saves the page shown
as SVG or PNG for slides; right-click a chart to show or hide its raw steps, smoothed line or epoch points.
<b>Help → Keyboard</b> lists every shortcut.</p>)";
}

QString keyboard_page(const QWidget* window) {
  QString rows;
  for (const Shortcut& s : keyboard_shortcuts(window))
    rows += QString("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(s.keys.toHtmlEscaped(), s.what.toHtmlEscaped());
  return "<h2>Keyboard</h2><table cellspacing='0' cellpadding='4'>" + rows + "</table>";
}
}  // namespace

QVector<Shortcut> keyboard_shortcuts(const QWidget* window) {
  QVector<Shortcut> out;
  QStringList seen;
  for (const QAction* a : window->findChildren<QAction*>()) {
    if (a->shortcut().isEmpty() || a->text().isEmpty()) continue;
    const QString keys = a->shortcut().toString(QKeySequence::NativeText);
    if (seen.contains(keys)) continue;  // one action reached from a menu and a toolbar
    seen << keys;
    out.push_back({keys, plain(a->text())});
  }
  for (const QShortcut* s : window->findChildren<QShortcut*>()) {
    const QString keys = s->key().toString(QKeySequence::NativeText);
    if (keys.isEmpty() || seen.contains(keys)) continue;
    seen << keys;
    out.push_back({keys, s->whatsThis().isEmpty() ? s->objectName() : s->whatsThis()});
  }
  return out;
}

HelpDialog::HelpDialog(Page page, const QWidget* window, QWidget* parent) : QDialog(parent) {
  setWindowTitle(page == Page::kGettingStarted ? "Getting started" : "Keyboard");
  html_ = page == Page::kGettingStarted ? getting_started() : keyboard_page(window);
  auto* text = new QTextBrowser;
  text->setHtml(html_);
  text->setOpenExternalLinks(false);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(text);
  layout->addWidget(buttons);
  // A page to read, not a dialog to answer: as wide as a paragraph reads well, as tall as fits, and
  // inside its screen (in projector type on a 720-line screen it was 1,080 lines, Close below it).
  const int em = fontMetrics().horizontalAdvance('M');
  const QSize wanted(page == Page::kGettingStarted ? 48 * em : 30 * em,
                     (page == Page::kGettingStarted ? 40 : 24) * fontMetrics().height());
  const QScreen* on = parent ? parent->screen() : screen();
  const QSize room = on ? on->availableGeometry().size() * 9 / 10 : wanted;
  resize(wanted.boundedTo(room));
}

}  // namespace mirror::ui
