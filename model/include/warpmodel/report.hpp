// Output: the model's results as tables (aligned text, Markdown, CSV). Nothing here computes.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "warpmodel/prediction.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/thesis.hpp"
#include "warpmodel/validation.hpp"

namespace warpmodel {

enum class TableFormat { Text, Markdown, Csv, Latex };

struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::string render(TableFormat format) const;
};

// "-" for unused (NaN) terms; otherwise up to `significant` significant digits, no exponent below 1e12.
std::string format_number(double value, int significant = 8);
std::string format_dim3(const Dim3& d);

// One row per term, one value column per prediction (so variants sit side by side).
Table prediction_table(std::span<const Prediction> predictions);
// The best `top` launch shapes of a sweep.
Table sweep_table(const SweepResult& sweep, std::size_t top);
// The worked example (printed vs recomputed) and tables 4.5 / 4.7.
Table thesis_rows_table(const ThesisReproduction& r);
Table thesis_cells_table(const ThesisReproduction& r);

// Validation (README "Validation"):
// one row per measured case x variant (validation.csv; loads into pandas as is),
Table validation_rows_table(const ValidationResult& v);
// per variant on the held-out half: MAPE, median and max |error|, Spearman, launch-shape choice,
Table validation_summary_table(const ValidationResult& v);
// per kernel and size: the shape each variant ranks first against the measured fastest,
Table shape_choice_table(const ValidationResult& v);
// and the thesis's layout (tables 4.5-4.7): per family and size, one row per kernel and
// warps/SM (or shape), measured cycles beside each variant's prediction and error.
struct TitledTable {
  std::string title;
  Table table;
};
std::vector<TitledTable> validation_layout_tables(const ValidationResult& v);
// Class scores (leave-one-class-out, cross-GPU, the split's held-out half): one row per class, then
// the pooled row when given: cases, MAPE, median |error|, mean signed error, within 10 % / 25 %.
Table class_score_table(const std::vector<ClassScore>& classes, const std::optional<ClassScore>& pooled);
// Every row of held-out evaluations (validation-held-out.csv): evaluation, class, case, errors.
Table held_out_rows_table(const std::vector<ValidationCase>& cases, const HeldOutEvaluation& e,
                          const std::string& evaluation, Table into = {});

}  // namespace warpmodel
