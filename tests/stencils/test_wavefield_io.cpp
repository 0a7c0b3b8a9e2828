// The snapshot and trace formats of run-stencil.
#include <cstring>

#include <gtest/gtest.h>

#include "warpmodel/stencils/wavefield_io.hpp"

namespace warpmodel::stencils {
namespace {

TEST(Vti, RoundTripsTwoFieldsAndDescribesTheGrid) {
  const Grid g{5, 4, 3, 10.0};
  std::vector<float> p(g.size()), v(g.size());
  for (std::size_t n = 0; n < g.size(); ++n) p[n] = 0.5f * float(n) - 7.25f, v[n] = 1500.0f + float(n);
  const std::string doc = vti_document(g, {{"pressure", &p}, {"velocity", &v}});
  EXPECT_NE(doc.find("WholeExtent=\"0 4 0 3 0 2\""), std::string::npos);
  EXPECT_NE(doc.find("Spacing=\"10 10 10\""), std::string::npos);
  EXPECT_NE(doc.find("Name=\"velocity\" format=\"appended\" offset=\"" + std::to_string(8 + 4 * g.size()) + "\""),
            std::string::npos);
  const VtiImage img = parse_vti(doc);
  EXPECT_EQ(img.grid.nx, 5u);
  EXPECT_EQ(img.grid.ny, 4u);
  EXPECT_EQ(img.grid.nz, 3u);
  EXPECT_EQ(img.grid.h, 10.0);
  ASSERT_EQ(img.names, (std::vector<std::string>{"pressure", "velocity"}));
  EXPECT_EQ(img.fields[0], p);
  EXPECT_EQ(img.fields[1], v);
}

TEST(Vti, RefusesMismatchedOrTruncatedData) {
  const Grid g{3, 3, 3, 1.0};
  std::vector<float> wrong(5);
  EXPECT_THROW(vti_document(g, {{"p", &wrong}}), std::invalid_argument);
  std::vector<float> p(g.size(), 1.0f);
  const std::string doc = vti_document(g, {{"p", &p}});
  EXPECT_THROW(parse_vti(doc.substr(0, doc.size() / 2)), std::invalid_argument);
  EXPECT_THROW(parse_vti("<?xml version=\"1.0\"?><VTKFile/>"), std::invalid_argument);
}

TEST(Trace, CsvHasHeaderAndOneRowPerSample) {
  const std::string csv = trace_csv({{1, 0.001, 0.25}, {2, 0.002, -1.5e-7}});
  EXPECT_EQ(csv, "step,time_s,pressure\n1,0.001,0.25\n2,0.002,-1.5e-07\n");
}

}  // namespace
}  // namespace warpmodel::stencils
