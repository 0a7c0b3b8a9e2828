// The 2D acoustic full-waveform inversion (FWI) of the GTX 970 study (source document 003,
// ../shared/notes/003-fwi2d-profiling.md): the grid, time axis, source, CPML parameters and
// acquisition of one experiment, with the study's table 4 as the defaults.
//
// Conventions (the study's, section 2.4): x is horizontal (index i, 0..nx-1), z is depth, positive
// downwards (index j, 0..nz-1); arrays are row-major with x fastest (figure 17: index = j nx + i).
// The CPML is inside the nx x nz grid (figure 18: 210 x 68 with a 20-point CPML), so 170 interior
// columns hold the receivers (N_traza = 170 in eq 4.1). The outermost ring of points is never
// updated (P = 0): the surface row z = 0 (eq 2.7, P = 0 for z < 0: a free surface) and the back of
// each absorbing layer.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace warpmodel::fwi {

struct Grid {
  int nx = 210;     // table 4: Nx
  int nz = 68;      // table 4: "Ny", the depth axis z
  double h = 25.0;  // m, dx = dz (table 4; eq 2.12 writes Delta h)
  std::size_t size() const { return static_cast<std::size_t>(nx) * static_cast<std::size_t>(nz); }
  std::size_t index(int i, int j) const { return static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) + i; }
};

struct TimeAxis {
  int nt = 625;       // table 4: Nt (tend = Nt dt = 2.5 s, eq 2.9)
  double dt = 0.004;  // s, table 4
};

// Which reading of eq 2.20 (a_q) is used. The document prints a_q = d_q / (d_q - alpha_q) (b_q - 1);
// the recursive convolution of Pasalic & McGarry (and Komatitsch & Martin 2007) needs
// a_q = d_q / (d_q + alpha_q) (b_q - 1). cpml.hpp derives it; tests/fwi shows the printed one fails.
enum class AqReading { Corrected, AsPrinted };

struct CpmlParameters {
  int width = 20;  // points, table 4: CPMLimit
  // eq 2.7 keeps P = 0 above z = 0: a free surface on top and absorbing layers on the other three
  // sides. true puts a layer on top too (the reflection test uses it to see all four sides).
  bool top = false;
  // d_0 of eq 2.22, which the study does not give: d_0 = 3 ln(1/R) / (2 L) for the quadratic
  // profile (Collino & Tsogka 2001), L = width h the layer's thickness, R the nominal reflection.
  // 1e-4 reflects least at 20 points among 1e-3 .. 1e-5 within 25 % (tests/fwi/test_cpml.cpp).
  double reflection = 1e-4;
  AqReading reading = AqReading::Corrected;
};

// One shot per source column, all at the same depth; every shot is recorded by the same receivers.
struct Acquisition {
  std::vector<int> source_i;
  int source_j = 2;
  std::vector<int> receiver_i;
  int receiver_j = 2;
};

struct Experiment {
  Grid grid;
  TimeAxis time;
  double frequency = 3.0;  // Hz, Ricker peak frequency (table 4: Frec)
  // The v_max of eq 2.22, fixed for a whole inversion so that a_q and b_q are computed once (the
  // study's reorganised version, section 4.2.5) and do not depend on the model being inverted.
  double cpml_velocity = 4000.0;
  CpmlParameters cpml;
  Acquisition acquisition;
};

// `shots` sources evenly spread over the interior columns (outside the CPML), at row `depth_row`;
// receivers on every interior column at the same row (170 at the study's size).
Acquisition surface_acquisition(const Grid& grid, int cpml_width, int shots, int depth_row);

// The first and one-past-last interior column and row (outside the CPML; the top row range starts
// at 1 under a free surface).
struct Interior {
  int i0, i1, j0, j1;
};
Interior interior(const Grid& grid, const CpmlParameters& cpml);

// eq 2.12: G = c dt / h; the 5-point scheme needs G <= 1/sqrt(2).
double courant_number(const Experiment& s, double velocity);

// Throws std::invalid_argument with one line naming the first problem: grid too small for the
// CPML, a source or receiver outside the interior, nt or dt or h or f not positive, or a
// velocity (`max_velocity`, the largest the run will see) that breaks eq 2.12.
void validate(const Experiment& s, double max_velocity);

// Ricker wavelet, eq 2.6: s(t) = (1 - 2 pi^2 f^2 t^2) exp(-pi^2 f^2 t^2).
double ricker(double t, double f);
// The source term of step n (eq 2.13): s(n dt - 1/f), the wavelet delayed by one period so that it
// starts from rest (eq 2.14), added to P^{n+1} at the source point as eq 2.11 writes it (not
// scaled by G^2).
double source_sample(const Experiment& s, int n);

}  // namespace warpmodel::fwi
