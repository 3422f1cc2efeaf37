#pragma once
// The Runs page: every recorded run listed (RunsBrowser) above the runs chosen, compared
// (CompareView). The list folds away so that a comparison fills the page (runs compared by a
// lesson, a sweep or --compare), the comparison's "Runs list" button and the handle left to bring
// it back.

#include <QSplitter>
#include <QStringList>

namespace mirror::ui {

class CompareView;
class RunsBrowser;

class RunsPage : public QSplitter {
  Q_OBJECT
 public:
  explicit RunsPage(QWidget* parent = nullptr);

  RunsBrowser* browser() const { return browser_; }
  CompareView* compare() const { return compare_; }
  // Selects the runs in `dirs` (opening those outside the runs folder) and compares them; a
  // scaling study's runs (two or more, all of one study) on the scaling page. For when the
  // browser is not loading().
  void compare_runs(const QStringList& dirs);
  // `folded`: the list folds up and the comparison fills the page; otherwise a folded list comes
  // back (a third of the page).
  void fold_list(bool folded);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  // Until the person drags the handle: the list gets its preferred rows (or, with nothing
  // compared, two fifths of a tall page), the comparison the rest, as far as the comparison's
  // minimum allows.
  void place_split();
  // place_split() once the event loop has laid out what just changed, unless the person dragged
  // the handle or the list is folded away.
  void place_split_soon();
  bool dragged_ = false;
  RunsBrowser* browser_;
  CompareView* compare_;
};

}  // namespace mirror::ui
