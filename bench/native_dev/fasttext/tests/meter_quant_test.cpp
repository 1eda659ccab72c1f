// fasttext::Meter (precision and recall of logged predictions), fasttext::ProductQuantizer and
// fasttext::QuantMatrix (product quantization of a matrix's rows).
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "densematrix.h"
#include "gtest/gtest.h"
#include "meter.h"
#include "productquantizer.h"
#include "quantmatrix.h"
#include "vector.h"

namespace fasttext {
real distL2(const real* x, const real* y, int32_t d);  // productquantizer.cc, not in its header
}

namespace {

using fasttext::DenseMatrix;
using fasttext::Meter;
using fasttext::Predictions;
using fasttext::ProductQuantizer;
using fasttext::QuantMatrix;
using fasttext::real;
using fasttext::Vector;
using Curve = std::vector<std::pair<double, double>>;

// exposes the layout of the quantizer
class PQ : public ProductQuantizer {
 public:
  using ProductQuantizer::ProductQuantizer;
  int32_t nsubq() const { return nsubq_; }
  int32_t lastdsub() const { return lastdsub_; }
  size_t ncentroids() const { return centroids_.size(); }
  const real* base() const { return centroids_.data(); }
};

// four examples: one right, one wrong, one half found, one with no prediction
Meter logged(bool falseNegatives) {
  Meter m(falseNegatives);
  m.log({0}, Predictions{{std::log(0.9f), 0}});
  m.log({1}, Predictions{{std::log(0.8f), 0}});
  m.log({1, 2}, Predictions{{std::log(0.7f), 1}});
  m.log({2}, Predictions{});
  return m;
}

void expectCurve(const Curve& got, const Curve& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) {
    EXPECT_NEAR(got[i].first, want[i].first, 1e-9) << i;
    EXPECT_NEAR(got[i].second, want[i].second, 1e-9) << i;
  }
}

// 256 rows of `dim` values, distinct in every coordinate, so 256 centroids reproduce them exactly
std::vector<real> points(int32_t dim) {
  std::vector<real> x(256 * dim);
  for (int32_t i = 0; i < 256; i++) {
    for (int32_t j = 0; j < dim; j++) {
      x[i * dim + j] = real((i * (2 * j + 3) + j) % 256) / 8 - 16;
    }
  }
  return x;
}

TEST(Meter, OverallPrecisionRecallF1) {
  Meter m = logged(false);
  EXPECT_EQ(m.nexamples(), 4u);
  EXPECT_DOUBLE_EQ(m.precision(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.recall(), 2.0 / 5);
  EXPECT_DOUBLE_EQ(m.f1Score(), 0.5);
  {
    std::ostringstream out;
    logged(false).writeGeneralMetrics(out, 1);
    EXPECT_EQ(out.str(), "N\t4\nP@1\t0.667\nR@1\t0.4\n");
  }
}

TEST(Meter, PerLabelMetrics) {
  Meter m = logged(false);
  EXPECT_DOUBLE_EQ(m.precision(0), 0.5);
  EXPECT_DOUBLE_EQ(m.recall(0), 1.0);
  EXPECT_DOUBLE_EQ(m.f1Score(0), 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.precision(1), 1.0);
  EXPECT_DOUBLE_EQ(m.recall(1), 0.5);
  EXPECT_DOUBLE_EQ(m.f1Score(1), 2.0 / 3);
  EXPECT_TRUE(std::isnan(m.precision(2)));  // never predicted
  EXPECT_DOUBLE_EQ(m.recall(2), 0.0);
  EXPECT_DOUBLE_EQ(m.f1Score(2), 0.0);
  EXPECT_TRUE(std::isnan(m.recall(7)));
  EXPECT_TRUE(std::isnan(m.f1Score(7)));
}

TEST(Meter, NothingLoggedIsNaN) {
  Meter m(false);
  EXPECT_TRUE(std::isnan(m.precision()));
  EXPECT_TRUE(std::isnan(m.recall()));
  EXPECT_TRUE(std::isnan(m.f1Score()));
  m.log({3}, Predictions{{std::log(0.5f), 4}});
  EXPECT_DOUBLE_EQ(m.precision(), 0.0);
  EXPECT_DOUBLE_EQ(m.recall(), 0.0);
  EXPECT_TRUE(std::isnan(m.f1Score()));
}


TEST(Meter, ScoresAgainstTruth) {
  Meter m = logged(true);
  auto all = m.scoreVsTrue(-1);
  ASSERT_EQ(all.size(), 6u);  // three predictions and three labels never predicted
  EXPECT_EQ(all[0], std::make_pair(real(-1), real(1)));
  EXPECT_EQ(all[2], std::make_pair(real(-1), real(1)));
  EXPECT_FLOAT_EQ(all[3].first, 0.7f);
  EXPECT_EQ(all[3].second, 1);
  EXPECT_FLOAT_EQ(all[4].first, 0.8f);
  EXPECT_EQ(all[4].second, 0);
  EXPECT_FLOAT_EQ(all[5].first, 0.9f);
  EXPECT_EQ(all[5].second, 1);
  EXPECT_EQ(m.scoreVsTrue(2), (std::vector<std::pair<real, real>>{{-1, 1}, {-1, 1}}));
  EXPECT_TRUE(m.scoreVsTrue(9).empty());
  EXPECT_EQ(logged(false).scoreVsTrue(-1).size(), 3u);
}

TEST(Meter, PrecisionRecallCurve) {
  Meter m = logged(true);
  expectCurve(m.precisionRecallCurve(), {{1.0, 0.2}, {0.5, 0.2}, {2.0 / 3, 0.4}, {1.0, 0.0}});
  expectCurve(m.precisionRecallCurve(0), {{1.0, 1.0}, {1.0, 0.0}});  // stops at full recall
  expectCurve(m.precisionRecallCurve(1), {{1.0, 0.5}, {1.0, 0.0}});
  EXPECT_TRUE(m.precisionRecallCurve(2).empty());
}

TEST(Meter, PrecisionAtRecallAndRecallAtPrecision) {
  Meter m = logged(false);
  EXPECT_DOUBLE_EQ(m.precisionAtRecall(0.2), 1.0);
  EXPECT_DOUBLE_EQ(m.precisionAtRecall(0.3), 2.0 / 3);
  EXPECT_DOUBLE_EQ(m.precisionAtRecall(0.5), 0.0);
  EXPECT_DOUBLE_EQ(m.recallAtPrecision(0.6), 0.4);
  EXPECT_DOUBLE_EQ(m.recallAtPrecision(0.9), 0.2);
  EXPECT_DOUBLE_EQ(m.recallAtPrecision(1.0), 0.2);
  EXPECT_DOUBLE_EQ(m.precisionAtRecall(0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(m.recallAtPrecision(1, 0.8), 0.5);
  EXPECT_DOUBLE_EQ(m.precisionAtRecall(1, 0.6), 0.0);
}

TEST(Meter, TiedScoresAreOnePointAndScoresAreCapped) {
  Meter m(false);
  m.log({0}, Predictions{{0.5f, 0}});  // exp(0.5) > 1: capped at 1
  m.log({}, Predictions{{0.0f, 1}});
  EXPECT_EQ(m.scoreVsTrue(0), (std::vector<std::pair<real, real>>{{1, 1}}));
  expectCurve(m.precisionRecallCurve(), {{0.5, 1.0}, {1.0, 0.0}});
  EXPECT_DOUBLE_EQ(m.precision(), 0.5);
  EXPECT_DOUBLE_EQ(m.recall(), 1.0);
}

TEST(ProductQuantizer, Layout) {
  PQ even(4, 2);
  EXPECT_EQ(even.nsubq(), 2);
  EXPECT_EQ(even.lastdsub(), 2);
  EXPECT_EQ(even.ncentroids(), 4u * 256);
  PQ odd(5, 2);
  EXPECT_EQ(odd.nsubq(), 3);
  EXPECT_EQ(odd.lastdsub(), 1);
  EXPECT_EQ(odd.get_centroids(0, 3) - odd.base(), 6);
  EXPECT_EQ(odd.get_centroids(1, 3) - odd.base(), (256 + 3) * 2);
  EXPECT_EQ(odd.get_centroids(2, 3) - odd.base(), 2 * 256 * 2 + 3);
  const PQ& constant = odd;
  EXPECT_EQ(constant.get_centroids(2, 255) - constant.base(), 2 * 256 * 2 + 255);
  EXPECT_EQ(constant.get_centroids(1, 1) - constant.base(), 514);
}

TEST(ProductQuantizer, DistanceAndNearestCentroid) {
  real a[3] = {1, 2, 3};
  real b[3] = {2, 0, 3};
  EXPECT_FLOAT_EQ(fasttext::distL2(a, b, 3), 5);
  EXPECT_FLOAT_EQ(fasttext::distL2(a, b, 1), 1);
  PQ pq(2, 2);
  for (int k = 0; k < 256; k++) {
    pq.get_centroids(0, k)[0] = k;
    pq.get_centroids(0, k)[1] = -k;
  }
  real x[2] = {17.25, -17};
  uint8_t code = 0;
  EXPECT_FLOAT_EQ(pq.assign_centroid(x, pq.get_centroids(0, 0), &code, 2), 0.0625);
  EXPECT_EQ(code, 17);
  real far[2] = {1000, -1000};
  pq.assign_centroid(far, pq.get_centroids(0, 0), &code, 2);
  EXPECT_EQ(code, 255);
  real tie[2] = {4.5, -4.5};  // as close to 4 as to 5: the first wins
  pq.assign_centroid(tie, pq.get_centroids(0, 0), &code, 2);
  EXPECT_EQ(code, 4);
  real xs[6] = {0, 0, 3.1, -3, 200, -201};
  uint8_t codes[3];
  pq.Estep(xs, pq.get_centroids(0, 0), codes, 2, 3);
  EXPECT_EQ(codes[0], 0);
  EXPECT_EQ(codes[1], 3);
  EXPECT_EQ(codes[2], 200);
}

TEST(ProductQuantizer, MStepAveragesAndSplitsEmptyClusters) {
  PQ pq(2, 2);
  std::vector<real> x(512);
  std::vector<uint8_t> codes(256);
  for (int i = 0; i < 256; i++) {
    x[2 * i] = i;
    x[2 * i + 1] = 2 * i;
    codes[i] = i;
  }
  x[0] = -1;  // points 0 and 1 share cluster 0 and average to (0, 1): cluster 1 is empty
  x[1] = 0;
  x[2] = 1;
  x[3] = 2;
  codes[1] = 0;
  std::vector<real> c(512);
  pq.MStep(x.data(), c.data(), codes.data(), 2, 256);
  const real eps = 1e-7;
  EXPECT_EQ(c[0], 0 + eps);  // cluster 0 is split in two, moved apart by eps
  EXPECT_EQ(c[1], 1 - eps);
  EXPECT_EQ(c[2], 0 - eps);
  EXPECT_EQ(c[3], 1 + eps);
  EXPECT_EQ(c[4], 2);  // the others are their single points
  EXPECT_EQ(c[5], 4);
  EXPECT_EQ(c[510], 255);
  EXPECT_EQ(c[511], 510);
}

TEST(ProductQuantizer, TrainedCodesReproduceDistinctPoints) {
  const int32_t dim = 5;
  std::vector<real> x = points(dim);
  PQ pq(dim, 2);
  pq.train(256, x.data());
  std::vector<uint8_t> codes(256 * pq.nsubq());
  pq.compute_codes(x.data(), codes.data(), 256);
  Vector ones(dim);
  for (int32_t j = 0; j < dim; j++) {
    ones[j] = j + 1;
  }
  for (int32_t i = 0; i < 256; i += 15) {
    Vector row(dim);
    row.zero();
    pq.addcode(row, codes.data(), i, 2);
    real dot = 0;
    for (int32_t j = 0; j < dim; j++) {
      EXPECT_EQ(row[j], 2 * x[i * dim + j]) << i << "," << j;
      dot += (j + 1) * x[i * dim + j];
    }
    EXPECT_FLOAT_EQ(pq.mulcode(ones, codes.data(), i, 0.5), dot / 2) << i;
  }
  uint8_t code[3];
  pq.compute_code(x.data() + 7 * dim, code);
  EXPECT_EQ(std::vector<uint8_t>(code, code + 3), std::vector<uint8_t>(&codes[7 * 3], &codes[7 * 3] + 3));
}

TEST(ProductQuantizer, TooFewRowsToTrain) {
  std::vector<real> x(255 * 2, 1.0);
  PQ pq(2, 2);
  EXPECT_THROW(pq.train(255, x.data()), std::invalid_argument);
}

TEST(ProductQuantizer, SaveAndLoad) {
  PQ pq(3, 2);
  for (size_t k = 0; k < 256; k++) {
    pq.get_centroids(0, k)[0] = k;
    pq.get_centroids(0, k)[1] = -real(k);
    pq.get_centroids(1, k)[0] = k / 2.0f;
  }
  std::stringstream buffer;
  pq.save(buffer);
  EXPECT_EQ(buffer.str().size(), 4 * sizeof(int32_t) + 3 * 256 * sizeof(real));
  PQ loaded;
  loaded.load(buffer);
  EXPECT_EQ(loaded.nsubq(), 2);
  EXPECT_EQ(loaded.lastdsub(), 1);
  EXPECT_EQ(loaded.ncentroids(), 3u * 256);
  EXPECT_EQ(loaded.get_centroids(0, 9)[1], -9);
  EXPECT_EQ(loaded.get_centroids(1, 9)[0], 4.5);
}

DenseMatrix matrixOf(const std::vector<real>& x, int64_t cols) {
  DenseMatrix m(x.size() / cols, cols);
  std::copy(x.begin(), x.end(), m.data());
  return m;
}

TEST(QuantMatrix, RowsAreReproduced) {
  const int32_t dim = 4;
  std::vector<real> x = points(dim);
  QuantMatrix q(matrixOf(x, dim), 2, false);
  EXPECT_EQ(q.size(0), 256);
  EXPECT_EQ(q.size(1), dim);
  Vector v(dim);
  for (int32_t j = 0; j < dim; j++) {
    v[j] = 1 - j;
  }
  for (int32_t i : {0, 1, 100, 255}) {
    real dot = 0;
    for (int32_t j = 0; j < dim; j++) {
      dot += (1 - j) * x[i * dim + j];
    }
    EXPECT_FLOAT_EQ(q.dotRow(v, i), dot) << i;
    Vector row(dim);
    row.zero();
    q.addRowToVector(row, i);
    q.addRowToVector(row, i, -3);
    for (int32_t j = 0; j < dim; j++) {
      EXPECT_EQ(row[j], -2 * x[i * dim + j]) << i << "," << j;
    }
  }
  Vector avg(dim);
  q.averageRowsToVector(avg, {2, 6});
  for (int32_t j = 0; j < dim; j++) {
    EXPECT_FLOAT_EQ(avg[j], (x[2 * dim + j] + x[6 * dim + j]) / 2) << j;
  }
}

TEST(QuantMatrix, NormsQuantizedSeparately) {
  const int32_t dim = 3;
  std::vector<real> x = points(dim);
  QuantMatrix q(matrixOf(x, dim), 1, true);
  for (int32_t i : {3, 77, 200}) {
    Vector row(dim);
    row.zero();
    q.addRowToVector(row, i);
    for (int32_t j = 0; j < dim; j++) {
      EXPECT_NEAR(row[j], x[i * dim + j], 1e-4) << i << "," << j;
    }
    Vector e(dim);
    e.zero();
    e[1] = 1;
    EXPECT_NEAR(q.dotRow(e, i), x[i * dim + 1], 1e-4) << i;
  }
}

TEST(QuantMatrix, SaveLoadAndReadOnly) {
  const int32_t dim = 4;
  std::vector<real> x = points(dim);
  QuantMatrix q(matrixOf(x, dim), 2, true);
  std::stringstream buffer;
  q.save(buffer);
  QuantMatrix loaded;
  loaded.load(buffer);
  EXPECT_EQ(loaded.size(0), 256);
  EXPECT_EQ(loaded.size(1), dim);
  Vector v(dim);
  for (int32_t j = 0; j < dim; j++) {
    v[j] = j;
  }
  for (int32_t i : {0, 50, 255}) {
    EXPECT_EQ(loaded.dotRow(v, i), q.dotRow(v, i)) << i;
  }
  EXPECT_THROW(loaded.addVectorToRow(v, 0, 1), std::runtime_error);
  std::ostringstream out;
  EXPECT_THROW(loaded.dump(out), std::runtime_error);
}

}  // namespace
