// fasttext::Vector and fasttext::DenseMatrix through their public headers.
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "densematrix.h"
#include "gtest/gtest.h"
#include "vector.h"

namespace {

using fasttext::DenseMatrix;
using fasttext::real;
using fasttext::Vector;

Vector vec(const std::vector<real>& values) {
  Vector v(values.size());
  for (size_t i = 0; i < values.size(); i++) {
    v[i] = values[i];
  }
  return v;
}

std::vector<real> items(const Vector& v) { return std::vector<real>(v.data(), v.data() + v.size()); }

// rows x cols, row-major from `values`
DenseMatrix mat(int64_t rows, int64_t cols, const std::vector<real>& values) {
  DenseMatrix m(rows, cols);
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t j = 0; j < cols; j++) {
      m.at(i, j) = values[i * cols + j];
    }
  }
  return m;
}

std::vector<real> items(const DenseMatrix& m) { return std::vector<real>(m.data(), m.data() + m.rows() * m.cols()); }

TEST(Vector, ZeroAndSize) {
  Vector v(4);
  v[2] = 7;
  v.zero();
  EXPECT_EQ(v.size(), 4);
  EXPECT_EQ(items(v), (std::vector<real>{0, 0, 0, 0}));
}

TEST(Vector, NormIsEuclidean) {
  EXPECT_FLOAT_EQ(vec({1, 2, 2}).norm(), 3.0f);
  EXPECT_FLOAT_EQ(vec({-3, 0, 4, 0}).norm(), 5.0f);
  EXPECT_FLOAT_EQ(vec({0, 0}).norm(), 0.0f);
  EXPECT_FLOAT_EQ(vec({2}).norm(), 2.0f);
}

TEST(Vector, MulByScalar) {
  Vector v = vec({1, -2, 0.5});
  v.mul(2);
  EXPECT_EQ(items(v), (std::vector<real>{2, -4, 1}));
  v.mul(0.5);
  EXPECT_EQ(items(v), (std::vector<real>{1, -2, 0.5}));
}

TEST(Vector, AddVectorPlainAndScaled) {
  Vector v = vec({1, 2, 3});
  v.addVector(vec({10, 20, 30}));
  EXPECT_EQ(items(v), (std::vector<real>{11, 22, 33}));
  {
    Vector v = vec({1, 2, 3});
    v.addVector(vec({10, 20, 30}), -0.5);
    EXPECT_EQ(items(v), (std::vector<real>{-4, -8, -12}));
  }
}


TEST(Vector, AddRowOfMatrix) {
  DenseMatrix m = mat(2, 3, {1, 2, 3, 4, 5, 6});
  Vector v = vec({1, 1, 1});
  v.addRow(m, 1);
  EXPECT_EQ(items(v), (std::vector<real>{5, 6, 7}));
  v.addRow(m, 0, 2);
  EXPECT_EQ(items(v), (std::vector<real>{7, 10, 13}));
  v.addRow(m, 1, -1);
  EXPECT_EQ(items(v), (std::vector<real>{3, 5, 7}));
}

TEST(Vector, MulMatrixByVector) {
  DenseMatrix m = mat(3, 2, {1, 2, 3, 4, -1, 0});
  Vector out(3);
  out.mul(m, vec({10, 1}));
  EXPECT_EQ(items(out), (std::vector<real>{12, 34, -10}));
}

TEST(Vector, ArgmaxTakesTheFirstLargest) {
  EXPECT_EQ(vec({1, 5, 5, 2}).argmax(), 1);
  EXPECT_EQ(vec({9, 1, 2}).argmax(), 0);
  EXPECT_EQ(vec({-3, -1, -2}).argmax(), 1);
  EXPECT_EQ(vec({0, 1, 2, 3}).argmax(), 3);
  EXPECT_EQ(vec({4}).argmax(), 0);
}

TEST(Vector, PrintsFiveSignificantDigits) {
  std::ostringstream out;
  out << vec({1.5, -2, 1.0f / 3});
  EXPECT_EQ(out.str(), "1.5 -2 0.33333 ");
}

TEST(DenseMatrix, ShapeZeroCopyAndMove) {
  DenseMatrix m(3, 4);
  m.zero();
  EXPECT_EQ(m.rows(), 3);
  EXPECT_EQ(m.cols(), 4);
  EXPECT_EQ(m.size(0), 3);
  EXPECT_EQ(m.size(1), 4);
  EXPECT_EQ(items(m), std::vector<real>(12, 0));
  DenseMatrix empty;
  EXPECT_EQ(empty.size(0), 0);
  EXPECT_EQ(empty.size(1), 0);
  {
    real raw[6] = {1, 2, 3, 4, 5, 6};
    DenseMatrix m(2, 3, raw);
    raw[0] = 100;  // the matrix holds a copy
    EXPECT_EQ(m.at(0, 0), 1);
    EXPECT_EQ(m.at(1, 2), 6);
    DenseMatrix moved(std::move(m));
    EXPECT_EQ(moved.rows(), 2);
    EXPECT_EQ(moved.cols(), 3);
    EXPECT_EQ(items(moved), (std::vector<real>{1, 2, 3, 4, 5, 6}));
  }
}


// each block of (rows * cols) / 10 values comes from its own generator, seeded block + seed
TEST(DenseMatrix, UniformWithTenThreadsFillsEveryBlock) {
  DenseMatrix m(4, 5);
  m.zero();
  m.uniform(0.25, 10, 3);
  for (int64_t i = 0; i < 20; i++) {
    std::minstd_rand rng(i / 2 + 3);
    std::uniform_real_distribution<> uniform(-0.25, 0.25);
    real first = uniform(rng);
    real second = uniform(rng);
    EXPECT_EQ(m.data()[i], i % 2 == 0 ? first : second) << i;
    EXPECT_LE(std::abs(m.data()[i]), 0.25f);
  }
}

TEST(DenseMatrix, UniformWithOneThreadFillsTheFirstBlockOnly) {
  DenseMatrix m(2, 10);
  m.zero();
  m.uniform(1.0, 1, 0);
  std::minstd_rand rng(0);
  std::uniform_real_distribution<> uniform(-1.0, 1.0);
  real a = uniform(rng);
  real b = uniform(rng);
  EXPECT_EQ(m.data()[0], a);
  EXPECT_EQ(m.data()[1], b);
  EXPECT_NE(a, 0);
  for (int64_t i = 2; i < 20; i++) {
    EXPECT_EQ(m.data()[i], 0) << i;
  }
}

TEST(DenseMatrix, MultiplyRowSkipsZeroFactorsAndTakesARange) {
  DenseMatrix m = mat(3, 2, {1, 2, 3, 4, 5, 6});
  m.multiplyRow(vec({2, 0, 3}));
  EXPECT_EQ(items(m), (std::vector<real>{2, 4, 3, 4, 15, 18}));
  {
    DenseMatrix m = mat(3, 2, {1, 2, 3, 4, 5, 6});
    m.multiplyRow(vec({10, -1}), 1, 3);
    EXPECT_EQ(items(m), (std::vector<real>{1, 2, 30, 40, -5, -6}));
    m.multiplyRow(vec({2}), 0, 1);
    EXPECT_EQ(items(m), (std::vector<real>{2, 4, 30, 40, -5, -6}));
  }
}


TEST(DenseMatrix, DivideRow) {
  DenseMatrix m = mat(3, 2, {2, 4, 3, 9, 5, 10});
  m.divideRow(vec({2, 0, 5}));
  EXPECT_EQ(items(m), (std::vector<real>{1, 2, 3, 9, 1, 2}));
  m.divideRow(vec({3, -1}), 1, 3);
  EXPECT_EQ(items(m), (std::vector<real>{1, 2, 1, 3, -1, -2}));
}

TEST(DenseMatrix, L2NormOfRows) {
  DenseMatrix m = mat(3, 2, {3, 4, 0, 0, -5, 12});
  EXPECT_FLOAT_EQ(m.l2NormRow(0), 5);
  EXPECT_FLOAT_EQ(m.l2NormRow(1), 0);
  EXPECT_FLOAT_EQ(m.l2NormRow(2), 13);
  Vector norms(3);
  m.l2NormRow(norms);
  EXPECT_EQ(items(norms), (std::vector<real>{5, 0, 13}));
}

TEST(DenseMatrix, DotRow) {
  DenseMatrix m = mat(2, 3, {1, 2, 3, -1, 0, 4});
  EXPECT_FLOAT_EQ(m.dotRow(vec({1, 1, 1}), 0), 6);
  EXPECT_FLOAT_EQ(m.dotRow(vec({2, 5, 0.5}), 1), 0);
  EXPECT_FLOAT_EQ(m.dotRow(vec({0, 1, 2}), 1), 8);
}

TEST(DenseMatrix, NaNIsReported) {
  DenseMatrix m = mat(2, 2, {1, std::numeric_limits<real>::quiet_NaN(), 1, 2});
  EXPECT_THROW(m.dotRow(vec({1, 1}), 0), DenseMatrix::EncounteredNaNError);
  EXPECT_THROW(m.l2NormRow(0), DenseMatrix::EncounteredNaNError);
  EXPECT_FLOAT_EQ(m.dotRow(vec({1, 1}), 1), 3);
}

TEST(DenseMatrix, AddBetweenRowsAndVectors) {
  DenseMatrix m = mat(2, 2, {1, 2, 3, 4});
  m.addVectorToRow(vec({10, 20}), 1, 0.5);
  EXPECT_EQ(items(m), (std::vector<real>{1, 2, 8, 14}));
  m.addVectorToRow(vec({1, 1}), 0, -1);
  EXPECT_EQ(items(m), (std::vector<real>{0, 1, 8, 14}));
  {
    DenseMatrix m = mat(2, 3, {1, 2, 3, 4, 5, 6});
    Vector x = vec({0, 0, 1});
    m.addRowToVector(x, 0);
    EXPECT_EQ(items(x), (std::vector<real>{1, 2, 4}));
    m.addRowToVector(x, 1, 3);
    EXPECT_EQ(items(x), (std::vector<real>{13, 17, 22}));
  }
}


TEST(DenseMatrix, AverageRowsOfANarrowMatrix) {
  DenseMatrix m = mat(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Vector x = vec({100, 100, 100});
  m.averageRowsToVector(x, {0, 2, 2});
  EXPECT_FLOAT_EQ(x[0], 5);
  EXPECT_FLOAT_EQ(x[1], 6);
  EXPECT_FLOAT_EQ(x[2], 7);
  m.averageRowsToVector(x, {1});
  EXPECT_EQ(items(x), (std::vector<real>{4, 5, 6}));
}

// 16 columns: the vectorised path
TEST(DenseMatrix, AverageRowsOfAWideMatrix) {
  DenseMatrix m(4, 16);
  for (int64_t i = 0; i < 4; i++) {
    for (int64_t j = 0; j < 16; j++) {
      m.at(i, j) = i * 16 + j;
    }
  }
  Vector x(16);
  m.averageRowsToVector(x, {1, 3});
  for (int64_t j = 0; j < 16; j++) {
    EXPECT_EQ(x[j], 32 + j) << j;
  }
  m.averageRowsToVector(x, {2, 0, 1});
  for (int64_t j = 0; j < 16; j++) {
    EXPECT_EQ(x[j], 16 + j) << j;
  }
  m.averageRowsToVector(x, {});
  EXPECT_TRUE(std::isnan(x[0]));
}

TEST(DenseMatrix, SaveAndLoad) {
  DenseMatrix m = mat(2, 3, {1, -2, 3.5, 4, 5, 6});
  std::stringstream buffer;
  m.save(buffer);
  EXPECT_EQ(buffer.str().size(), 2 * sizeof(int64_t) + 6 * sizeof(real));
  DenseMatrix loaded;
  loaded.load(buffer);
  EXPECT_EQ(loaded.rows(), 2);
  EXPECT_EQ(loaded.cols(), 3);
  EXPECT_EQ(items(loaded), (std::vector<real>{1, -2, 3.5, 4, 5, 6}));
}

TEST(DenseMatrix, Dump) {
  std::ostringstream out;
  mat(2, 3, {1, 2, 3, 4, 5.5, -6}).dump(out);
  EXPECT_EQ(out.str(), "2 3\n1 2 3\n4 5.5 -6\n");
}

}  // namespace
