// fasttext::Args (the command line and its autotune settings) and fasttext::utils.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.h"
#include "gtest/gtest.h"
#include "utils.h"

namespace {

using fasttext::Args;
using fasttext::loss_name;
using fasttext::metric_name;
using fasttext::model_name;

// exposes the protected string helpers
class TestArgs : public Args {
 public:
  using Args::boolToString;
  using Args::metricToString;
  using Args::modelToString;
};

Args parsed(std::vector<std::string> argv) {
  Args a;
  argv.insert(argv.begin(), "fasttext");
  a.parseArgs(argv);
  return a;
}

std::string help(Args& a) {
  std::ostringstream out;
  std::streambuf* old = std::cerr.rdbuf(out.rdbuf());
  a.printHelp();
  std::cerr.rdbuf(old);
  return out.str();
}

Args withMetric(const std::string& metric) {
  Args a;
  a.autotuneMetric = metric;
  return a;
}

Args withModelSize(const std::string& size) {
  Args a;
  a.autotuneModelSize = size;
  return a;
}

TEST(Args, Defaults) {
  Args a;
  EXPECT_DOUBLE_EQ(a.lr, 0.05);
  EXPECT_EQ(a.dim, 100);
  EXPECT_EQ(a.ws, 5);
  EXPECT_EQ(a.epoch, 5);
  EXPECT_EQ(a.minCount, 5);
  EXPECT_EQ(a.minCountLabel, 0);
  EXPECT_EQ(a.neg, 5);
  EXPECT_EQ(a.wordNgrams, 1);
  EXPECT_EQ(a.loss, loss_name::ns);
  EXPECT_EQ(a.model, model_name::sg);
  EXPECT_EQ(a.bucket, 2000000);
  EXPECT_EQ(a.minn, 3);
  EXPECT_EQ(a.maxn, 6);
  EXPECT_EQ(a.thread, 12);
  EXPECT_EQ(a.lrUpdateRate, 100);
  EXPECT_DOUBLE_EQ(a.t, 1e-4);
  EXPECT_EQ(a.label, "__label__");
  EXPECT_EQ(a.verbose, 2);
  EXPECT_FALSE(a.saveOutput);
  EXPECT_EQ(a.seed, 0);
  EXPECT_FALSE(a.qout);
  EXPECT_FALSE(a.retrain);
  EXPECT_FALSE(a.qnorm);
  EXPECT_EQ(a.cutoff, 0u);
  EXPECT_EQ(a.dsub, 2u);
  EXPECT_EQ(a.autotuneMetric, "f1");
  EXPECT_EQ(a.autotunePredictions, 1);
  EXPECT_EQ(a.autotuneDuration, 300);
  EXPECT_FALSE(a.hasAutotune());
  {
    Args a;
    EXPECT_FALSE(a.isManual("dim"));
    a.setManual("dim");
    EXPECT_TRUE(a.isManual("dim"));
    EXPECT_FALSE(a.isManual("ws"));
  }
}

TEST(Args, NamesOfEnumsAndBools) {
  TestArgs a;
  EXPECT_EQ(a.lossToString(loss_name::hs), "hs");
  EXPECT_EQ(a.lossToString(loss_name::ns), "ns");
  EXPECT_EQ(a.lossToString(loss_name::softmax), "softmax");
  EXPECT_EQ(a.lossToString(loss_name::ova), "one-vs-all");
  EXPECT_EQ(a.modelToString(model_name::cbow), "cbow");
  EXPECT_EQ(a.modelToString(model_name::sg), "sg");
  EXPECT_EQ(a.modelToString(model_name::sup), "sup");
  EXPECT_EQ(a.boolToString(true), "true");
  EXPECT_EQ(a.boolToString(false), "false");
  {
    TestArgs a;
    EXPECT_EQ(a.metricToString(metric_name::f1score), "f1score");
    EXPECT_EQ(a.metricToString(metric_name::f1scoreLabel), "f1scoreLabel");
    EXPECT_EQ(a.metricToString(metric_name::precisionAtRecall), "precisionAtRecall");
    EXPECT_EQ(a.metricToString(metric_name::precisionAtRecallLabel), "precisionAtRecallLabel");
    EXPECT_EQ(a.metricToString(metric_name::recallAtPrecision), "recallAtPrecision");
    EXPECT_EQ(a.metricToString(metric_name::recallAtPrecisionLabel), "recallAtPrecisionLabel");
  }
}


TEST(Args, SupervisedCommandChangesDefaults) {
  Args a = parsed({"supervised", "-input", "train.txt", "-output", "model"});
  EXPECT_EQ(a.input, "train.txt");
  EXPECT_EQ(a.output, "model");
  EXPECT_EQ(a.model, model_name::sup);
  EXPECT_EQ(a.loss, loss_name::softmax);
  EXPECT_EQ(a.minCount, 1);
  EXPECT_EQ(a.minn, 0);
  EXPECT_EQ(a.maxn, 0);
  EXPECT_DOUBLE_EQ(a.lr, 0.1);
  EXPECT_EQ(a.bucket, 0);  // no word n-grams and no subwords: no buckets
  EXPECT_TRUE(a.isManual("input"));
  EXPECT_TRUE(a.isManual("output"));
  EXPECT_FALSE(a.isManual("lr"));
}

TEST(Args, BucketsStayWhenSomethingHashes) {
  EXPECT_EQ(parsed({"supervised", "-input", "i", "-output", "o", "-wordNgrams", "2"}).bucket, 2000000);
  EXPECT_EQ(parsed({"supervised", "-input", "i", "-output", "o", "-maxn", "4"}).bucket, 2000000);
  Args tuned = parsed({"supervised", "-input", "i", "-output", "o", "-autotune-validation", "v.txt"});
  EXPECT_EQ(tuned.bucket, 2000000);
  EXPECT_TRUE(tuned.hasAutotune());
  EXPECT_EQ(tuned.autotuneValidationFile, "v.txt");
  EXPECT_EQ(parsed({"skipgram", "-input", "i", "-output", "o"}).bucket, 2000000);
}

TEST(Args, EveryOption) {
  Args a = parsed({"cbow", "-input", "i", "-output", "o", "-lr", "0.5", "-lrUpdateRate", "50", "-dim", "10",
                   "-ws", "3", "-epoch", "7", "-minCount", "2", "-minCountLabel", "4", "-neg", "6",
                   "-wordNgrams", "3", "-loss", "hs", "-bucket", "100", "-minn", "2", "-maxn", "4",
                   "-thread", "1", "-t", "0.001", "-label", "#", "-verbose", "0", "-saveOutput",
                   "-pretrainedVectors", "p.vec", "-seed", "42", "-qnorm", "-retrain", "-qout", "-cutoff", "9",
                   "-dsub", "4", "-autotune-metric", "f1:#x", "-autotune-predictions", "3",
                   "-autotune-duration", "60", "-autotune-modelsize", "2M"});
  EXPECT_EQ(a.model, model_name::cbow);
  EXPECT_DOUBLE_EQ(a.lr, 0.5);
  EXPECT_EQ(a.lrUpdateRate, 50);
  EXPECT_EQ(a.dim, 10);
  EXPECT_EQ(a.ws, 3);
  EXPECT_EQ(a.epoch, 7);
  EXPECT_EQ(a.minCount, 2);
  EXPECT_EQ(a.minCountLabel, 4);
  EXPECT_EQ(a.neg, 6);
  EXPECT_EQ(a.wordNgrams, 3);
  EXPECT_EQ(a.loss, loss_name::hs);
  EXPECT_EQ(a.bucket, 100);
  EXPECT_EQ(a.minn, 2);
  EXPECT_EQ(a.maxn, 4);
  EXPECT_EQ(a.thread, 1);
  EXPECT_FLOAT_EQ(a.t, 0.001);
  EXPECT_EQ(a.label, "#");
  EXPECT_EQ(a.verbose, 0);
  EXPECT_TRUE(a.saveOutput);
  EXPECT_EQ(a.pretrainedVectors, "p.vec");
  EXPECT_EQ(a.seed, 42);
  EXPECT_TRUE(a.qnorm);
  EXPECT_TRUE(a.retrain);
  EXPECT_TRUE(a.qout);
  EXPECT_EQ(a.cutoff, 9u);
  EXPECT_EQ(a.dsub, 4u);
  EXPECT_EQ(a.autotuneMetric, "f1:#x");
  EXPECT_EQ(a.autotunePredictions, 3);
  EXPECT_EQ(a.autotuneDuration, 60);
  EXPECT_EQ(a.autotuneModelSize, "2M");
  EXPECT_TRUE(a.isManual("saveOutput"));
  EXPECT_TRUE(a.isManual("autotune-modelsize"));
}

TEST(Args, LossNames) {
  EXPECT_EQ(parsed({"sg", "-input", "i", "-output", "o", "-loss", "ns"}).loss, loss_name::ns);
  EXPECT_EQ(parsed({"sg", "-input", "i", "-output", "o", "-loss", "softmax"}).loss, loss_name::softmax);
  EXPECT_EQ(parsed({"sg", "-input", "i", "-output", "o", "-loss", "ova"}).loss, loss_name::ova);
  EXPECT_EQ(parsed({"sg", "-loss", "one-vs-all", "-input", "i", "-output", "o"}).loss, loss_name::ova);
}

TEST(Args, SaveAndLoad) {
  Args a;
  a.dim = 16;
  a.ws = 2;
  a.epoch = 9;
  a.minCount = 3;
  a.neg = 7;
  a.wordNgrams = 2;
  a.loss = loss_name::hs;
  a.model = model_name::sup;
  a.bucket = 1234;
  a.minn = 1;
  a.maxn = 5;
  a.lrUpdateRate = 10;
  a.t = 0.25;
  std::stringstream buffer;
  a.save(buffer);
  EXPECT_EQ(buffer.str().size(), 12 * sizeof(int) + sizeof(double));
  Args b;
  b.load(buffer);
  std::ostringstream da, db;
  a.dump(da);
  b.dump(db);
  EXPECT_EQ(db.str(), da.str());
  EXPECT_EQ(b.bucket, 1234);
  EXPECT_EQ(b.model, model_name::sup);
  EXPECT_DOUBLE_EQ(b.t, 0.25);
}

TEST(Args, Dump) {
  Args a;
  std::ostringstream out;
  a.dump(out);
  EXPECT_EQ(out.str(),
            "dim 100\nws 5\nepoch 5\nminCount 5\nneg 5\nwordNgrams 1\nloss ns\nmodel sg\nbucket 2000000\n"
            "minn 3\nmaxn 6\nlrUpdateRate 100\nt 0.0001\n");
}

TEST(Args, HelpShowsTheCurrentValues) {
  Args a;
  a.qnorm = true;
  std::string text = help(a);
  EXPECT_NE(text.find("  -verbose            verbosity level [2]\n"), std::string::npos);
  EXPECT_NE(text.find("  -minCount           minimal number of word occurences [5]\n"), std::string::npos);
  EXPECT_NE(text.find("  -bucket             number of buckets [2000000]\n"), std::string::npos);
  EXPECT_NE(text.find("  -label              labels prefix [__label__]\n"), std::string::npos);
  EXPECT_NE(text.find("  -dim                size of word vectors [100]\n"), std::string::npos);
  EXPECT_NE(text.find("{ns, hs, softmax, one-vs-all} [ns]\n"), std::string::npos);
  EXPECT_NE(text.find("  -saveOutput         whether output params should be saved [false]\n"), std::string::npos);
  EXPECT_NE(text.find("  -autotune-duration              maximum duration in seconds [300]\n"), std::string::npos);
  EXPECT_NE(text.find("  -qnorm              whether the norm is quantized separately [true]\n"), std::string::npos);
  EXPECT_NE(text.find("  -dsub               size of each sub-vector [2]\n"), std::string::npos);
}

TEST(Args, AutotuneMetricKinds) {
  EXPECT_EQ(withMetric("f1").getAutotuneMetric(), metric_name::f1score);
  EXPECT_EQ(withMetric("f1:__label__a").getAutotuneMetric(), metric_name::f1scoreLabel);
  EXPECT_EQ(withMetric("precisionAtRecall:30").getAutotuneMetric(), metric_name::precisionAtRecall);
  EXPECT_EQ(withMetric("precisionAtRecall:30:__label__a").getAutotuneMetric(),
            metric_name::precisionAtRecallLabel);
  EXPECT_EQ(withMetric("recallAtPrecision:45").getAutotuneMetric(), metric_name::recallAtPrecision);
  EXPECT_EQ(withMetric("recallAtPrecision:45:b").getAutotuneMetric(), metric_name::recallAtPrecisionLabel);
  EXPECT_THROW(withMetric("f2").getAutotuneMetric(), std::runtime_error);
  EXPECT_THROW(withMetric("precision").getAutotuneMetric(), std::runtime_error);
}

TEST(Args, AutotuneMetricLabelAndValue) {
  EXPECT_EQ(withMetric("f1").getAutotuneMetricLabel(), "");
  EXPECT_EQ(withMetric("f1:__label__a").getAutotuneMetricLabel(), "__label__a");
  EXPECT_EQ(withMetric("precisionAtRecall:30:__label__b").getAutotuneMetricLabel(), "__label__b");
  EXPECT_EQ(withMetric("recallAtPrecision:45:c").getAutotuneMetricLabel(), "c");
  EXPECT_EQ(withMetric("recallAtPrecision:45").getAutotuneMetricLabel(), "");
  EXPECT_THROW(withMetric("f1:").getAutotuneMetricLabel(), std::runtime_error);
  EXPECT_DOUBLE_EQ(withMetric("f1").getAutotuneMetricValue(), 0.0);
  EXPECT_DOUBLE_EQ(withMetric("precisionAtRecall:30").getAutotuneMetricValue(), 0.3);
  EXPECT_DOUBLE_EQ(withMetric("recallAtPrecision:45:c").getAutotuneMetricValue(), 0.45);
  EXPECT_DOUBLE_EQ(withMetric("precisionAtRecall:5:lbl").getAutotuneMetricValue(), 0.05);
}

TEST(Args, AutotuneModelSize) {
  EXPECT_EQ(withModelSize("").getAutotuneModelSize(), -1);
  EXPECT_EQ(withModelSize("100").getAutotuneModelSize(), 100);
  EXPECT_EQ(withModelSize("2k").getAutotuneModelSize(), 2000);
  EXPECT_EQ(withModelSize("3K").getAutotuneModelSize(), 3000);
  EXPECT_EQ(withModelSize("4M").getAutotuneModelSize(), 4000000);
  EXPECT_EQ(withModelSize("5m").getAutotuneModelSize(), 5000000);
  EXPECT_EQ(withModelSize("2G").getAutotuneModelSize(), 2000000000);
  EXPECT_THROW(withModelSize("12x").getAutotuneModelSize(), std::invalid_argument);
  EXPECT_THROW(withModelSize("1k5").getAutotuneModelSize(), std::invalid_argument);
  EXPECT_THROW(withModelSize("M").getAutotuneModelSize(), std::invalid_argument);
}


TEST(Utils, FileSizeAndSeek) {
  const std::string path = testing::TempDir() + "fasttext_utils_test.txt";
  std::ofstream(path, std::ios::binary) << "0123456789";
  std::ifstream in(path, std::ios::binary);
  EXPECT_EQ(fasttext::utils::size(in), 10);
  fasttext::utils::seek(in, 4);
  EXPECT_EQ(in.get(), '4');
  in.seekg(0, std::ios::end);
  in.get();  // past the end: eof and fail
  fasttext::utils::seek(in, 7);
  EXPECT_TRUE(in.good());
  EXPECT_EQ(in.get(), '7');
}

TEST(Utils, DurationAndClock) {
  std::chrono::steady_clock::time_point start{};
  EXPECT_DOUBLE_EQ(fasttext::utils::getDuration(start, start + std::chrono::milliseconds(1500)), 1.5);
  EXPECT_DOUBLE_EQ(fasttext::utils::getDuration(start, start), 0.0);
  {
    std::ostringstream out;
    out << fasttext::utils::ClockPrint(3725) << "|" << fasttext::utils::ClockPrint(0) << "|"
        << fasttext::utils::ClockPrint(86399);
    EXPECT_EQ(out.str(), "  1h 2m 5s|  0h 0m 0s| 23h59m59s");
  }
}


TEST(Utils, Containers) {
  std::vector<std::pair<double, double>> pairs{{1, 10}, {2, 20}};
  EXPECT_TRUE(fasttext::utils::compareFirstLess(pairs[0], 2.0));
  EXPECT_FALSE(fasttext::utils::compareFirstLess(pairs[1], 2.0));
  EXPECT_FALSE(fasttext::utils::compareFirstLess(pairs[1], 1.5));
  EXPECT_TRUE(fasttext::utils::contains(std::vector<int>{1, 2, 3}, 2));
  EXPECT_FALSE(fasttext::utils::contains(std::vector<int>{1, 2, 3}, 4));
  EXPECT_TRUE(fasttext::utils::containsSecond(pairs, 20.0));
  EXPECT_FALSE(fasttext::utils::containsSecond(pairs, 2.0));
}

}  // namespace
