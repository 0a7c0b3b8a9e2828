// The validation's tables (report.hpp): class scores, held-out rows and the per-variant summary,
// rendered as Markdown and CSV.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "warpmodel/report.hpp"
#include "warpmodel/validation.hpp"

namespace warpmodel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ValidationReport, ClassScoreTable) {
  // class, cases, MAPE, median |error|, mean signed error, within 10 %, within 25 %
  const std::vector<ClassScore> classes = {ClassScore{"streaming", 4, 0.125, 0.1, 0.05, 0.5, 1},
                                           ClassScore{"naive-loop", 2, 0.3, 0.3, -0.3, 0, 0}};
  const ClassScore pooled{"pooled", 6, 0.2, 0.15, 0, 1.0 / 3, 2.0 / 3};
  const Table t = class_score_table(classes, pooled);
  ASSERT_EQ(t.rows.size(), 3u);  // one per class, then pooled
  EXPECT_EQ(t.render(TableFormat::Markdown),
            "| class | cases | MAPE | median \\|error\\| | mean signed error | within 10% | within 25% |\n"
            "|---|---|---|---|---|---|---|\n"
            "| streaming | 4 | 12.5% | 10% | +5% | 50% | 100% |\n"
            "| naive-loop | 2 | 30% | 30% | -30% | 0% | 0% |\n"
            "| pooled | 6 | 20% | 15% | +0% | 33.3% | 66.7% |\n");
  EXPECT_EQ(t.render(TableFormat::Csv),
            "class,cases,MAPE,median |error|,mean signed error,within 10%,within 25%\n"
            "streaming,4,12.5%,10%,+5%,50%,100%\n"
            "naive-loop,2,30%,30%,-30%,0%,0%\n"
            "pooled,6,20%,15%,+0%,33.3%,66.7%\n");
  // Without a pooled row: the classes only. A class with no cases prints "-" (and no sign).
  const Table alone = class_score_table({ClassScore{"empty", 0, kNaN, kNaN, kNaN, kNaN, kNaN}}, std::nullopt);
  EXPECT_EQ(alone.render(TableFormat::Csv),
            "class,cases,MAPE,median |error|,mean signed error,within 10%,within 25%\n"
            "empty,0,-,-,-,-,-\n");
}

TEST(ValidationReport, HeldOutRowsTable) {
  std::vector<ValidationCase> cases(2);
  cases[0].family = "stencil";
  cases[0].kernel = "intz-reg order 8";
  cases[0].size = "512^3";
  cases[0].shape = "32x4x1 @16 warps/SM";
  cases[1].family = "corpus";
  cases[1].kernel = "gemv";
  cases[1].size = "4096";
  cases[1].shape = "256x1x1";
  HeldOutEvaluation e;
  e.name = "leave-one-class-out";
  ValidationRow ok;
  ok.case_index = 0;
  ok.variant = ModelVariant::Hopper;
  ok.measured_cycles = 1000;
  ok.predicted_cycles = 1100;
  ok.signed_error = 0.1;
  ok.bound = "T_data";
  ValidationRow failed;
  failed.case_index = 1;
  failed.variant = ModelVariant::Hopper;
  failed.measured_cycles = 2500;
  failed.error = "no L2 rate, no DRAM rate";
  e.rows = {ok, failed};
  e.row_class = {"stencil", "naive-loop"};

  const Table t = held_out_rows_table(cases, e, "leave-one-class-out");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.render(TableFormat::Csv),
            "evaluation,class,family,kernel,size,shape,measured_cycles,predicted_cycles,signed_error,abs_error,bound,"
            "error\n"
            "leave-one-class-out,stencil,stencil,intz-reg order 8,512^3,32x4x1 @16 warps/SM,1000,1100,0.1,0.1,T_data,\n"
            "leave-one-class-out,naive-loop,corpus,gemv,4096,256x1x1,2500,,,,,\"no L2 rate, no DRAM rate\"\n");
  // A second evaluation appends to the same table: one header, the rows of both.
  e.rows[0].signed_error = -0.25;
  e.rows[0].predicted_cycles = 750;
  const Table both = held_out_rows_table(cases, e, "cross-gpu", t);
  ASSERT_EQ(both.rows.size(), 4u);
  EXPECT_EQ(both.headers, t.headers);
  EXPECT_EQ(both.rows[2], (std::vector<std::string>{"cross-gpu", "stencil", "stencil", "intz-reg order 8", "512^3",
                                                     "32x4x1 @16 warps/SM", "1000", "750", "-0.25", "0.25", "T_data",
                                                     ""}));
  const std::string md = both.render(TableFormat::Markdown);
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "| evaluation | class | family | kernel | size | shape | measured_cycles | predicted_cycles | signed_error | "
            "abs_error | bound | error |");
  EXPECT_NE(md.find("| cross-gpu | naive-loop | corpus | gemv | 4096 | 256x1x1 | 2500 |  |  |  |  | no L2 rate, no DRAM "
                    "rate |\n"),
            std::string::npos)
      << md;
}

TEST(ValidationReport, SummaryTable) {
  ValidationResult v;
  // variant, held-out cases, MAPE, median |error|, max |error|, Spearman (three decimals: 0.995 is
  // not rounded to 1; one case has none)
  v.summaries = {VariantSummary{ModelVariant::Hopper, 10, 0.125, 0.1, 0.5, 0.995},
                 VariantSummary{ModelVariant::Thesis2016, 1, 2, 2, 2, kNaN}};
  // variant, kernels x sizes, top-1 shape, shape within 5 %
  v.shape_summaries = {ShapeChoiceSummary{ModelVariant::Hopper, 3, 2.0 / 3, 1},
                       ShapeChoiceSummary{ModelVariant::Thesis2016, 0, kNaN, kNaN}};

  const Table t = validation_summary_table(v);
  ASSERT_EQ(t.rows.size(), 2u);  // one per variant
  EXPECT_EQ(t.render(TableFormat::Markdown),
            "| model | held-out cases | MAPE | median \\|error\\| | max \\|error\\| | Spearman | kernels x sizes | "
            "top-1 shape | shape within 5% |\n"
            "|---|---|---|---|---|---|---|---|---|\n"
            "| hopper | 10 | 12.5% | 10% | 50% | 0.995 | 3 | 66.7% | 100% |\n"
            "| thesis-2016 | 1 | 200% | 200% | 200% | - | 0 | - | - |\n");
  EXPECT_EQ(t.render(TableFormat::Csv),
            "model,held-out cases,MAPE,median |error|,max |error|,Spearman,kernels x sizes,top-1 shape,shape within 5%\n"
            "hopper,10,12.5%,10%,50%,0.995,3,66.7%,100%\n"
            "thesis-2016,1,200%,200%,200%,-,0,-,-\n");
}

}  // namespace
}  // namespace warpmodel
