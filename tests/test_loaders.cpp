// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/data/loaders.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::Fixture;
using test::ThrowsInputError;
using test::WriteTempFile;

DenseRows ToDense(const Dataset& d) {
  return VisitRows(d, [](const auto& m) { return DenseRows(m); });
}

std::string SharedData(const std::string& relative) {
  return std::string(DPADMM_SHARED_DATA) + "/" + relative;
}

bool HaveSharedData(const std::string& relative) {
  return std::filesystem::exists(SharedData(relative));
}

// A malformed input, the line the error must name and a phrase it must contain.
struct BadInput {
  std::string content;
  int line;  // 0: the message names the file only
  std::string phrase;
};

void ExpectAllRejected(const std::vector<BadInput>& cases,
                       const std::function<void(const std::string&)>& load) {
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const BadInput& c = cases[k];
    const std::string path = WriteTempFile("bad_" + std::to_string(k) + ".txt", c.content);
    const std::string where = c.line > 0 ? path + ":" + std::to_string(c.line) + ": " : path + ": ";
    EXPECT_TRUE(ThrowsInputError([&] { load(path); }, {where, c.phrase}))
        << "case " << k << ": \"" << c.content << "\"";
  }
}

// ---- LIBSVM ------------------------------------------------------------------------------------

TEST(LibsvmTest, LoadsFixtureSkippingBlankLines) {
  const Dataset d = LoadLibsvm(Fixture("small.libsvm"));
  ASSERT_TRUE(d.is_sparse());
  EXPECT_EQ(d.name, "small.libsvm");
  EXPECT_EQ(d.rows(), 4);
  EXPECT_EQ(d.cols(), 4);
  EXPECT_EQ(d.nonzeros(), 5);
  EXPECT_EQ(d.y, Eigen::Vector4d(1, -1, 1, -1));
  DenseRows expected(4, 4);
  expected << 0.5, 0, 2, 0,  //
      0, 1, 0, 0,            //
      1.5, 0, 0, -0.1,       //
      0, 0, 0, 0;
  EXPECT_EQ(ToDense(d), expected);
  EXPECT_NO_THROW(d.Validate());
}

TEST(LibsvmTest, NumFeaturesFixesColumnCount) {
  EXPECT_EQ(LoadLibsvm(Fixture("small.libsvm"), 10).cols(), 10);
  EXPECT_EQ(LoadLibsvm(Fixture("small.libsvm"), 4).cols(), 4);
  const std::string path = Fixture("small.libsvm");
  EXPECT_TRUE(ThrowsInputError([&] { LoadLibsvm(path, 3); },
                               {path + ":4: ", "feature index 4 exceeds the 3 features"}));
}

TEST(LibsvmTest, TestSetIsPaddedByResize) {
  const std::string path = WriteTempFile("narrow.libsvm", "-1 1:1\n+1 2:1\n");
  Dataset test = LoadLibsvm(path);
  EXPECT_EQ(test.cols(), 2);
  test.Resize(4);
  EXPECT_EQ(test.cols(), 4);
  EXPECT_EQ(test.nonzeros(), 2);
}

TEST(LibsvmTest, MapsZeroOneAndOneTwoLabels) {
  const Dataset zero_one = LoadLibsvm(WriteTempFile("01.libsvm", "0 1:1\n1 1:2\n0.0 1:3\n"));
  EXPECT_EQ(zero_one.y, Eigen::Vector3d(-1, 1, -1));
  const Dataset one_two = LoadLibsvm(WriteTempFile("12.libsvm", "2 1:1\n1 1:2\n+2 1:3\n"));
  EXPECT_EQ(one_two.y, Eigen::Vector3d(1, -1, 1));
  const Dataset only_ones = LoadLibsvm(WriteTempFile("11.libsvm", "1 1:1\n1.0 1:2\n"));
  EXPECT_EQ(only_ones.y, Eigen::Vector2d(1, 1));
}

TEST(LibsvmTest, HandlesCrLfTabsAndMissingFinalNewline) {
  const Dataset d = LoadLibsvm(WriteTempFile("crlf.libsvm", "+1 1:1 2:2 \r\n-1\t3:3\r\n+1 1:4"));
  EXPECT_EQ(d.rows(), 3);
  EXPECT_EQ(d.cols(), 3);
  EXPECT_EQ(ToDense(d)(2, 0), 4.0);
  EXPECT_EQ(ToDense(d)(1, 2), 3.0);
}

TEST(LibsvmTest, ExplicitZerosAreNotStoredButCountForColumns) {
  const Dataset d = LoadLibsvm(WriteTempFile("zeros.libsvm", "+1 1:0 2:1 5:0\n-1 1:1\n"));
  EXPECT_EQ(d.cols(), 5);
  EXPECT_EQ(d.nonzeros(), 2);
}

TEST(LibsvmTest, MalformedInputNamesFileAndLine) {
  ExpectAllRejected(
      {
          {"+1 1:1\n-1 2:abc\n", 2, "bad value 'abc'"},
          {"+1 1:1\n-1 3\n", 2, "bad token '3' (expected index:value)"},
          {"+1 1:1\n\n-1 x:1\n", 3, "bad feature index 'x'"},
          {"+1 0:1\n", 1, "feature index 0 out of range"},
          {"+1 -2:1\n", 1, "feature index -2 out of range"},
          {"+1 1:1 3:1 2:1\n", 1, "feature index 2 is not greater than the previous index 3"},
          {"+1 1:1\n+1 2:1 2:1\n", 2, "feature index 2 is not greater"},
          {"+1 1:nan\n", 1, "NaN or Inf"},
          {"+1 1:1\n-1 1:inf\n", 2, "NaN or Inf"},
          {"+1 1:1e999\n", 1, "out of the double range"},
          {"+1 1:1\n3 1:1\n", 2, "unknown label '3'"},
          {"+1 1:1\n0.5 1:1\n", 2, "unknown label '0.5'"},
          {"-1 1:1\n+1 1:1\n0 1:1\n", 3, "cannot be mixed"},
          {"abc 1:1\n", 1, "bad label 'abc'"},
          {"1:1 2:1\n", 1, "bad label '1:1'"},
          {"+1 1:1.5.2\n", 1, "bad value '1.5.2'"},
          {"", 0, "empty file"},
          {"\n  \n\r\n", 0, "empty file"},
      },
      [](const std::string& path) { LoadLibsvm(path); });
}

TEST(LoaderTest, MissingFileSaysCannotOpen) {
  const std::string path = test::TempPath("dpadmm_no_such_file.libsvm");
  EXPECT_TRUE(ThrowsInputError([&] { LoadLibsvm(path); }, {path + ": cannot open file"}));
  EXPECT_TRUE(ThrowsInputError([&] { LoadCsv(path); }, {path + ": cannot open file"}));
  EXPECT_TRUE(ThrowsInputError([&] { LoadAsc(path, path); }, {path + ": cannot open file"}));
  EXPECT_TRUE(ThrowsInputError([&] { LoadAdult(path, path); }, {path + ": cannot open file"}));
  const std::string dir = test::TempPath("");
  EXPECT_TRUE(ThrowsInputError([&] { LoadLibsvm(dir); }, {dir, "cannot open file"}));
}

TEST(LibsvmTest, LoadsA9aFromSharedData) {
  if (!HaveSharedData("a9a/a9a")) GTEST_SKIP() << "shared data not available";
  const Dataset train = LoadLibsvm(SharedData("a9a/a9a"));
  EXPECT_EQ(train.rows(), 32561);
  EXPECT_EQ(train.cols(), 123);
  EXPECT_EQ(train.nonzeros(), 451592);
  EXPECT_EQ((train.y.array() > 0).count(), 7841);
  const Dataset test = LoadLibsvm(SharedData("a9a/a9a.t"), 123);
  EXPECT_EQ(test.rows(), 16281);
  EXPECT_EQ(test.cols(), 123);
  EXPECT_EQ(test.nonzeros(), 225731);
  EXPECT_EQ(LoadLibsvm(SharedData("a9a/a9a.t")).cols(), 122);
}

// ---- UCI Adult ---------------------------------------------------------------------------------

TEST(AdultTest, EncodesFixture) {
  const AdultData a = LoadAdult(Fixture("adult_mini.data"), Fixture("adult_mini.test"));
  // Complete rows only; categories seen only in the dropped row ('?') give no column:
  // 6 numeric + workclass 3 + education 3 + marital 2 + occupation 4 + relationship 3 + race 2
  // + sex 2 + country 2 = 27.
  ASSERT_TRUE(a.train.is_sparse());
  ASSERT_TRUE(a.test.is_sparse());
  EXPECT_EQ(a.train.name, "adult_mini.data");
  EXPECT_EQ(a.train.rows(), 2);
  EXPECT_EQ(a.test.rows(), 2);
  EXPECT_EQ(a.train.cols(), 27);
  EXPECT_EQ(a.test.cols(), 27);
  EXPECT_EQ(a.train.y, Eigen::Vector2d(-1, 1));
  EXPECT_EQ(a.test.y, Eigen::Vector2d(-1, 1));

  // Train row 0: 39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical,
  // Not-in-family, White, Male, 2174, 0, 40, United-States.
  Eigen::RowVectorXd expected = Eigen::RowVectorXd::Zero(27);
  expected[0] = (39.0 - 25) / (50 - 25);  // age, min 25 (test) max 50
  expected[1] = 0.0;                      // fnlwgt 77516 is the minimum
  expected[2] = 1.0;                      // education-num 13 is the maximum
  expected[3] = 1.0;                      // capital-gain 2174 is the maximum
  expected[4] = 0.0;                      // capital-loss
  expected[5] = (40.0 - 13) / (50 - 13);  // hours-per-week
  expected[6 + 2] = 1;                    // workclass: Private, Self-emp-not-inc, State-gov
  expected[9 + 1] = 1;                    // education: 11th, Bachelors, HS-grad
  expected[12 + 1] = 1;                   // marital: Married-civ-spouse, Never-married
  expected[14 + 0] = 1;                   // occupation: Adm-clerical, Exec-, Farming-, Machine-
  expected[18 + 1] = 1;                   // relationship: Husband, Not-in-family, Own-child
  expected[21 + 1] = 1;                   // race: Black, White
  expected[23 + 1] = 1;                   // sex: Female, Male
  expected[25 + 1] = 1;                   // country: Peru, United-States
  EXPECT_TRUE(ToDense(a.train).row(0).isApprox(expected, 1e-15)) << ToDense(a.train).row(0);
  // Test row 1 has capital-loss 1902, the maximum, and country Peru.
  EXPECT_EQ(ToDense(a.test)(1, 4), 1.0);
  EXPECT_EQ(ToDense(a.test)(1, 25), 1.0);
  // Every row has exactly one category per categorical attribute.
  for (const Dataset* d : {&a.train, &a.test}) {
    const DenseRows x = ToDense(*d);
    EXPECT_TRUE((x.rightCols(21).rowwise().sum().array() == 8.0).all());
    EXPECT_TRUE((x.leftCols(6).array() >= 0.0).all() && (x.leftCols(6).array() <= 1.0).all());
  }
}

TEST(AdultTest, MalformedInputNamesFileAndLine) {
  const std::string good_test = Fixture("adult_mini.test");
  const std::string row =
      "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, "
      "Male, 2174, 0, 40, United-States, ";
  ExpectAllRejected(
      {
          {row + "<=50K\n" + "39, State-gov, 77516\n", 2, "expected 15 fields, found 3"},
          {row + "<=50K, extra\n", 1, "expected 15 fields, found 16"},
          {"\n" + row + "maybe\n", 2, "unknown label 'maybe'"},
          {"x" + row + "<=50K\n", 1, "bad value 'x39'"},
          {"nan" + row.substr(2) + "<=50K\n", 1, "NaN or Inf"},
          {"", 0, "empty file"},
          {"|comment only\n\n", 0, "empty file"},
      },
      [&](const std::string& path) { LoadAdult(path, good_test); });
  // Errors in the test file name the test file.
  const std::string bad_test = WriteTempFile("adult_bad.test", "|1x3\n" + row + ">50K\n1, 2\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadAdult(Fixture("adult_mini.data"), bad_test); },
                               {bad_test + ":3: ", "expected 15 fields"}));
}

TEST(AdultTest, LoadsRealDataWithPapersPreprocessing) {
  if (!HaveSharedData("adult/adult.data")) GTEST_SKIP() << "shared data not available";
  const AdultData a = LoadAdult(SharedData("adult/adult.data"), SharedData("adult/adult.test"));
  EXPECT_EQ(a.train.rows(), 30162);
  EXPECT_EQ(a.test.rows(), 15060);
  EXPECT_EQ(a.train.cols(), 104);
  EXPECT_EQ(a.test.cols(), 104);
  EXPECT_EQ((a.train.y.array() > 0).count(), 7508);
  EXPECT_EQ((a.test.y.array() > 0).count(), 3700);
  EXPECT_NO_THROW(a.train.Validate());
  EXPECT_NO_THROW(a.test.Validate());
  // 8 one-hot entries plus at most 6 nonzero numeric values per row.
  EXPECT_GE(a.train.nonzeros(), 8 * a.train.rows());
  EXPECT_LE(a.train.nonzeros(), 14 * a.train.rows());
  EXPECT_LE(a.train.MaxRowNorm(), std::sqrt(14.0));
}

// ---- CSV ---------------------------------------------------------------------------------------

TEST(CsvTest, LoadsFixtureWithHeader) {
  const Dataset d = LoadCsv(Fixture("small.csv"), -1, ',', /*has_header=*/true);
  ASSERT_FALSE(d.is_sparse());
  EXPECT_EQ(d.rows(), 3);
  EXPECT_EQ(d.cols(), 2);
  DenseRows expected(3, 2);
  expected << 1.5, -2, 0, 30, 4, 5;
  EXPECT_EQ(ToDense(d), expected);
  EXPECT_EQ(d.y, Eigen::Vector3d(1, -1, 1));  // 0/1 labels
}

TEST(CsvTest, LabelColumnFromStartOrEndAndWhitespaceDelimiter) {
  const std::string path = WriteTempFile("first.csv", "-1 1 2\n+1\t3   4 \n");
  const Dataset first = LoadCsv(path, 0, ' ');
  EXPECT_EQ(first.y, Eigen::Vector2d(-1, 1));
  DenseRows expected(2, 2);
  expected << 1, 2, 3, 4;
  EXPECT_EQ(ToDense(first), expected);
  EXPECT_EQ(LoadCsv(path, -3, ' ').y, first.y);
  const Dataset last = LoadCsv(WriteTempFile("last.csv", "1, 2, 2\n3, 4, 1\n"));
  EXPECT_EQ(last.y, Eigen::Vector2d(1, -1));  // 1/2 labels
  EXPECT_EQ(ToDense(last), expected);
}

TEST(CsvTest, MalformedInputNamesFileAndLine) {
  ExpectAllRejected(
      {
          {"1,2,1\n3,4\n", 2, "expected 3 columns, found 2"},
          {"1,2,1\n\n3,4,1,5\n", 3, "expected 3 columns, found 4"},
          {"a,b,label\n1,2,1\n", 1, "bad value 'a'"},
          {"1,,1\n", 1, "bad value ''"},
          {"1,2,1\n1,nan,-1\n", 2, "NaN or Inf"},
          {"1,2,1\n1,2,5\n", 2, "unknown label '5'"},
          {"1,2,7\n", 1, "unknown label '7'"},
          {"1\n2\n", 0, "no feature columns"},
          {"\n\n", 0, "empty file"},
      },
      [](const std::string& path) { LoadCsv(path); });
  const std::string path = WriteTempFile("cols.csv", "1,2,1\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadCsv(path, 3); },
                               {path + ":1: ", "label column 3 out of range for 3 columns"}));
  EXPECT_TRUE(ThrowsInputError([&] { LoadCsv(path, -4); }, {path + ":1: ", "label column -4"}));
  const std::string header_only = WriteTempFile("header.csv", "a,b,label\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadCsv(header_only, -1, ',', true); },
                               {header_only + ": ", "empty file"}));
}

// ---- Raetsch .asc ------------------------------------------------------------------------------

TEST(AscTest, LoadsFixture) {
  const Dataset d = LoadAsc(Fixture("small_data.asc"), Fixture("small_labels.asc"));
  ASSERT_FALSE(d.is_sparse());
  EXPECT_EQ(d.name, "small_data.asc");
  EXPECT_EQ(d.rows(), 3);
  EXPECT_EQ(d.cols(), 2);
  EXPECT_EQ(d.y, Eigen::Vector3d(1, -1, 1));
  EXPECT_DOUBLE_EQ(ToDense(d)(1, 0), 1.9586164);
  EXPECT_DOUBLE_EQ(ToDense(d)(0, 1), -0.98507109);
}

TEST(AscTest, RowCountMismatchNamesBothFiles) {
  const std::string data = Fixture("small_data.asc");
  const std::string labels = WriteTempFile("two_labels.asc", "1\n-1\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadAsc(data, labels); },
                               {labels + ": has 2 labels but " + data + " has 3 rows"}));
}

TEST(AscTest, MalformedInputNamesFileAndLine) {
  const std::string labels = Fixture("small_labels.asc");
  ExpectAllRejected(
      {
          {"1 2\n3 4\n5\n", 3, "expected 2 columns, found 1"},
          {"1 2\n3 x\n5 6\n", 2, "bad value 'x'"},
          {"1 2\n3 inf\n5 6\n", 2, "NaN or Inf"},
          {"", 0, "empty file"},
      },
      [&](const std::string& path) { LoadAsc(path, labels); });
  const std::string data = Fixture("small_data.asc");
  ExpectAllRejected(
      {
          {"1\n-1\n0\n", 3, "unknown label '0'"},
          {"1\n2\n1\n", 2, "unknown label '2'"},
          {"1\n-1 1\n1\n", 2, "expected one label"},
          {"1\nabc\n1\n", 2, "bad label 'abc'"},
      },
      [&](const std::string& path) { LoadAsc(data, path); });
}

TEST(AscTest, LoadsBananaFromSharedData) {
  if (!HaveSharedData("banana/banana_train_data_1.asc")) GTEST_SKIP() << "no shared data";
  const Dataset d = LoadAsc(SharedData("banana/banana_train_data_1.asc"),
                            SharedData("banana/banana_train_labels_1.asc"));
  EXPECT_EQ(d.rows(), 400);
  EXPECT_EQ(d.cols(), 2);
  EXPECT_NO_THROW(d.Validate());
}

// Partition-aware loading (each MPI rank loads its own nodes' rows only): the kept rows equal
// the full load's, in order, and nothing else is held; the label mapping is the whole file's
// even when a share sees only one label value (here "1", which is -1 in a 1/2 file).
TEST(LibsvmTest, LoadsOnlyTheKeptRows) {
  const std::string path = WriteTempFile("rows.libsvm",
                                         "2 1:0.5 3:1\n"
                                         "1 2:2\n"
                                         "\n"
                                         "2 1:1 2:1 3:1\n"
                                         "1 3:4\n"
                                         "  \n"
                                         "2 2:-1\n"
                                         "1 1:3 2:3\n");
  const Dataset all = LoadLibsvm(path);
  ASSERT_EQ(all.rows(), 6);
  const std::vector<std::vector<std::int64_t>> shares = {{1, 3, 5}, {0, 4}, {2}};
  // The file's label set: the union of the shares' (each share reads only its own labels).
  unsigned codes = 0;
  for (const auto& keep : shares) codes |= ReadLibsvmRows(path, keep).label_codes;
  std::int64_t total = 0;
  for (const auto& keep : shares) {
    std::int64_t rows_in_file = -1;
    const Dataset part = LoadLibsvmRows(path, keep, all.cols(), &rows_in_file, codes);
    EXPECT_EQ(rows_in_file, 6);
    ASSERT_EQ(part.rows(), static_cast<std::int64_t>(keep.size()));
    const Dataset expected = all.Subset(keep);
    EXPECT_EQ(part.y, expected.y);
    EXPECT_TRUE(Eigen::MatrixXd(std::get<SparseRows>(part.x))
                    .isApprox(Eigen::MatrixXd(std::get<SparseRows>(expected.x)), 0.0))
        << Eigen::MatrixXd(std::get<SparseRows>(part.x)) << "\n--\n"
        << Eigen::MatrixXd(std::get<SparseRows>(expected.x));
    total += part.rows();
  }
  EXPECT_EQ(total, all.rows());
  // Rows 1, 3, 5 all have label "1": -1 with the file's label set (1/2), +1 when the share's
  // own set decides (-1/+1 is preferred for a file of only 1s).
  EXPECT_EQ(LoadLibsvmRows(path, std::vector<std::int64_t>{1, 3, 5}, 0, nullptr, codes).y,
            Eigen::VectorXd::Constant(3, -1.0));
  EXPECT_EQ(LoadLibsvmRows(path, std::vector<std::int64_t>{1, 3, 5}).y,
            Eigen::VectorXd::Constant(3, 1.0));
  // Without num_features: the largest index among the kept rows.
  EXPECT_EQ(LoadLibsvmRows(path, std::vector<std::int64_t>{1}).cols(), 2);
  EXPECT_EQ(LoadLibsvmRows(path, std::vector<std::int64_t>{}).rows(), 0);
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        LoadLibsvmRows(path, std::vector<std::int64_t>{2, 6});
      },
      {"row 6", "6 data rows"}));
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        LoadLibsvmRows(path, std::vector<std::int64_t>{3, 1});
      },
      {"increasing"}));
}

// The other formats' share readers skip other holders' rows without parsing them: malformed
// rows outside `keep` do not fail, and the kept rows equal the full load's.
TEST(RowShareTest, SkippedRowsAreNeverParsed) {
  const std::string csv = WriteTempFile("share.csv",
                                        "a,b,label\n"
                                        "1,2,0\n"
                                        "garbage\n"
                                        "\n"
                                        "3,4,1\n"
                                        "x,y,z,w\n");
  RowShare share = ReadCsvRows(csv, std::vector<std::int64_t>{0, 2}, -1, ',', true);
  EXPECT_EQ(share.rows_in_file, 4);
  EXPECT_EQ(share.fields, 3);
  MapRawLabels(share.data, share.label_codes, false, csv);
  EXPECT_EQ(share.data.y, (Eigen::VectorXd(2) << -1.0, 1.0).finished());
  EXPECT_EQ(std::get<DenseRows>(share.data.x), (DenseRows(2, 2) << 1, 2, 3, 4).finished());
  EXPECT_TRUE(
      ThrowsInputError([&] { (void)ReadCsvRows(csv, std::vector<std::int64_t>{1}, -1, ',', true); },
                       {"share.csv:"}));
  EXPECT_EQ(CountDataRows(csv, true), 4);

  const std::string data = WriteTempFile("share_data.asc", "1 2\nbad\n3 4\n");
  const std::string labels = WriteTempFile("share_labels.asc", "1\n7\n-1\n");
  RowShare asc = ReadAscRows(data, labels, std::vector<std::int64_t>{0, 2});
  MapRawLabels(asc.data, asc.label_codes, true, labels);
  EXPECT_EQ(asc.data.y, (Eigen::VectorXd(2) << 1.0, -1.0).finished());
  EXPECT_TRUE(ThrowsInputError(
      [&] { (void)ReadAscRows(data, labels, std::vector<std::int64_t>{1}); }, {"bad"}));
  // A label set that fits no mapping (0 and 2 together) is refused when the shares are united.
  Dataset d;
  d.y = Eigen::VectorXd::Zero(1);
  EXPECT_TRUE(ThrowsInputError([&] { MapRawLabels(d, 0b1010u, false, "f"); }, {"label"}));
}

// Adult in shares: two holders' record sets, each encoded with the merged schema of both
// (as an allgather gives it), equal the whole load's rows.
TEST(RowShareTest, AdultSharesWithTheMergedEncodingEqualTheWholeLoad) {
  const std::string train = Fixture("adult_mini.data"), test = Fixture("adult_mini.test");
  const AdultData whole = LoadAdult(train, test);
  const std::int64_t records = CountAdultRecords(train);
  ASSERT_EQ(records, whole.train.rows());
  std::vector<std::int64_t> a, b;
  for (std::int64_t r = 0; r < records; ++r) (r % 3 == 1 ? a : b).push_back(r);
  // Pass 1: each holder's own schema block; pass 2: every holder sees both.
  std::vector<double> blocks;
  const auto capture = [&](std::vector<double> mine) {
    blocks.insert(blocks.end(), mine.begin(), mine.end());
    return mine;
  };
  (void)LoadAdultRows(train, test, a, capture);
  (void)LoadAdultRows(train, test, b, capture);
  const auto all = [&](const std::vector<double>&) { return blocks; };
  for (const auto* keep : {&a, &b}) {
    const AdultData part = LoadAdultRows(train, test, *keep, all);
    const Dataset expected = whole.train.Subset(*keep);
    EXPECT_EQ(part.train.y, expected.y);
    EXPECT_TRUE(Eigen::MatrixXd(std::get<SparseRows>(part.train.x))
                    .isApprox(Eigen::MatrixXd(std::get<SparseRows>(expected.x)), 0.0));
    EXPECT_TRUE(Eigen::MatrixXd(std::get<SparseRows>(part.test.x))
                    .isApprox(Eigen::MatrixXd(std::get<SparseRows>(whole.test.x)), 0.0));
  }
}

// The vertical partition's readers (sharing under MPI): only the marked columns' values and,
// if asked, the labels are parsed; another holder's value never is, even when it is garbage.
// The kept columns equal the whole load's, the others are absent (sparse) or 0 (dense).
TEST(ColumnShareTest, LibsvmKeepsOnlyTheMarkedColumnsAndNeverParsesTheOthers) {
  const std::string clean = WriteTempFile("cols.libsvm",
                                          "+1 1:0.5 3:1 5:2\n"
                                          "\n"
                                          "-1 2:2 4:-1\n"
                                          "+1 1:1 5:3\n");
  // Columns 2 and 3 (1-based 3, 4) and the labels belong to others: garbage in this copy.
  const std::string poisoned = WriteTempFile("cols_poisoned.libsvm",
                                             "? 1:0.5 3:x 5:2\n"
                                             "\n"
                                             "? 2:2 4:y\n"
                                             "? 1:1 5:3\n");
  const Dataset all = LoadLibsvm(clean);
  EXPECT_TRUE(ThrowsInputError([&] { (void)LoadLibsvm(poisoned); }, {"cols_poisoned.libsvm:1"}));
  const std::vector<char> mine = {1, 1, 0, 0, 1};
  RowShare share = ReadLibsvmColumns(poisoned, mine, /*read_labels=*/false);
  EXPECT_EQ(share.rows_in_file, 3);
  EXPECT_EQ(share.label_codes, 0u);
  EXPECT_EQ(share.data.y, Eigen::VectorXd::Zero(3));
  ASSERT_EQ(share.data.cols(), 5);  // the largest index, from the indices alone
  Eigen::MatrixXd expected = Eigen::MatrixXd(std::get<SparseRows>(all.x));
  expected.col(2).setZero();
  expected.col(3).setZero();
  EXPECT_EQ(Eigen::MatrixXd(std::get<SparseRows>(share.data.x)), expected);
  EXPECT_EQ(std::get<SparseRows>(share.data.x).nonZeros(), 5);  // nothing stored for others
  EXPECT_EQ(LibsvmMaxIndex(poisoned), 5);
  // The label holder: labels parsed (raw), mapped by the file's set.
  RowShare labelled = ReadLibsvmColumns(clean, std::vector<char>{}, /*read_labels=*/true, 7);
  EXPECT_EQ(labelled.data.cols(), 7);
  EXPECT_EQ(std::get<SparseRows>(labelled.data.x).nonZeros(), 0);
  MapRawLabels(labelled.data, labelled.label_codes, false, clean);
  EXPECT_EQ(labelled.data.y, all.y);
  // Structure is still checked for every token: an index out of order fails on any holder.
  const std::string unordered = WriteTempFile("cols_unordered.libsvm", "1 3:x 2:y\n");
  EXPECT_TRUE(ThrowsInputError([&] { (void)ReadLibsvmColumns(unordered, mine, false); },
                               {"cols_unordered.libsvm:1", "not greater"}));
}

TEST(ColumnShareTest, AscParsesOnlyTheMarkedFieldsAndLabelsOnlyWhenAsked) {
  const std::string data = WriteTempFile("cols_data.asc", "1 x 3\n4 y 6\n");
  const std::string labels = WriteTempFile("cols_labels.asc", "1\n-1\n");
  const std::vector<char> mine = {1, 0, 1};
  RowShare share = ReadAscColumns(data, "", mine);
  EXPECT_EQ(share.rows_in_file, 2);
  EXPECT_EQ(share.fields, 3);
  EXPECT_EQ(share.data.y, Eigen::VectorXd::Zero(2));
  EXPECT_EQ(std::get<DenseRows>(share.data.x), (DenseRows(2, 3) << 1, 0, 3, 4, 0, 6).finished());
  RowShare labelled = ReadAscColumns(data, labels, mine);
  MapRawLabels(labelled.data, labelled.label_codes, true, labels);
  EXPECT_EQ(labelled.data.y, (Eigen::VectorXd(2) << 1.0, -1.0).finished());
  const std::string short_labels = WriteTempFile("cols_short.asc", "1\n");
  EXPECT_TRUE(ThrowsInputError([&] { (void)ReadAscColumns(data, short_labels, mine); },
                               {"has 1 labels", "2 rows"}));
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        (void)ReadAscColumns(data, "", {1, 1, 1});
      },
      {"cols_data.asc:1"}));
}

// ---- Rows whose norm overflows ------------------------------------------------------------------

// Finite values whose squares overflow (about 1e308; two of 1e154 also do): every reader of
// every format refuses the first such row naming the file and its line, whatever the file's
// role (the loaders read train, test and the sharing family's files alike).
TEST(RowNormTest, EveryReaderNamesTheFileAndLineOfTheFirstRowWhoseNormOverflows) {
  const std::string phrase = "the row's norm is not finite";
  const std::string svm = WriteTempFile("huge.svm", "+1 1:0.5 2:1\n\n-1 1:1e308 2:2\n+1 1:1e308\n");
  const std::string where = svm + ":3: ";
  const std::vector<std::int64_t> all = {0, 1, 2};
  EXPECT_TRUE(ThrowsInputError([&] { LoadLibsvm(svm); }, {where, phrase, "1e+308"}));
  EXPECT_TRUE(ThrowsInputError([&] { ReadLibsvmRows(svm, all); }, {where, phrase}));
  EXPECT_TRUE(ThrowsInputError([&] { LoadLibsvmRows(svm, all); }, {where, phrase}));
  EXPECT_TRUE(ThrowsInputError([&] { ReadLibsvmColumns(svm, {1, 1}, true); }, {where, phrase}));
  // Another holder's row or column is never parsed, so it cannot be refused here.
  EXPECT_NO_THROW(ReadLibsvmRows(svm, std::vector<std::int64_t>{0}));
  EXPECT_NO_THROW(ReadLibsvmColumns(svm, {0, 1}, true));
  // Two values of 1e154: each square fits, their sum does not.
  const std::string pair = WriteTempFile("pair.svm", "+1 1:1e154 2:1e154\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadLibsvm(pair); }, {pair + ":1: ", phrase}));
  EXPECT_NO_THROW(LoadLibsvm(WriteTempFile("fits.svm", "+1 1:1e150 2:1e150\n")));

  const std::string csv = WriteTempFile("huge.csv", "x,y,label\n1,2,1\n-1e308,1e308,0\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadCsv(csv, -1, ',', true); }, {csv + ":3: ", phrase}));
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        ReadCsvRows(csv, std::vector<std::int64_t>{0, 1}, -1, ',', true);
      },
      {csv + ":3: ", phrase}));
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        ReadCsvColumns(csv, {1, 1, 1}, -1, ',', true);
      },
      {csv + ":3: ", phrase}));

  const std::string asc = WriteTempFile("huge.asc", "1 2\n3 4\n5 1e200\n");
  const std::string labels = WriteTempFile("huge.labels", "1\n-1\n1\n");
  EXPECT_TRUE(ThrowsInputError([&] { LoadAsc(asc, labels); }, {asc + ":3: ", phrase}));
  EXPECT_TRUE(ThrowsInputError([&] { ReadAscRows(asc, labels, all); }, {asc + ":3: ", phrase}));
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        ReadAscColumns(asc, labels, {1, 1});
      },
      {asc + ":3: ", phrase}));
}

// Adult's numeric attributes are min-max scaled to [0, 1] over both files, so huge raw values
// still give rows of norm <= sqrt(14): nothing to refuse, and the load is finite.
TEST(RowNormTest, AdultScalesHugeValuesIntoRange) {
  const std::string row =
      ", Private, 77516, Bachelors, 13, Never-married, Adm-clerical, "
      "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n";
  const std::string train = WriteTempFile("huge_adult.data", "1e308" + row + "-1e308" + row);
  const std::string test = WriteTempFile("huge_adult.test", "39" + row);
  const AdultData d = LoadAdult(train, test);
  EXPECT_TRUE(std::isfinite(d.train.MaxRowNorm()));
  EXPECT_TRUE(std::isfinite(d.test.MaxRowNorm()));
}

}  // namespace
}  // namespace dpadmm
