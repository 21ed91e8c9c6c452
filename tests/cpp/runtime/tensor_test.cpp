#include <cstdint>
#include <cstring>
#include <vector>

#include "pypto/runtime/dlpack.h"
#include "pypto/runtime/runtime.h"
#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

using testing::ErrorOf;

TEST(RuntimeTensor, AllocateIsAlignedZeroedAndRowMajor) {
  Tensor t = Tensor::Allocate(ir::DataType::FP32, {3, 5});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kTensorAlignment, 0u);
  EXPECT_EQ(t.strides(), (Dims{5, 1}));
  EXPECT_TRUE(t.is_contiguous());
  const float* data = static_cast<const float*>(t.data());
  for (int i = 0; i < 15; ++i) EXPECT_EQ(data[i], 0.0f);
}

TEST(RuntimeTensor, ViewSharesStorageAndOffsetsTheDataPointer) {
  std::vector<int64_t> memory(8 * 16);
  Tensor t = Tensor::Wrap(memory.data(), ir::DataType::INT64, {8, 16});
  Tensor v = t.View({2, 4}, {3, 8});
  EXPECT_EQ(v.storage(), t.storage());
  EXPECT_EQ(v.data(), memory.data() + 2 * 16 + 4);
  EXPECT_EQ(v.strides(), t.strides());
  EXPECT_FALSE(v.is_contiguous());
  Tensor w = v.View({1, 1}, {2, 2});
  EXPECT_EQ(w.data(), memory.data() + 3 * 16 + 5);
  EXPECT_EQ(w.root_origin(), (Dims{3, 5}));
}

TEST(RuntimeTensor, ViewOutsideTheTensorIsAValueError) {
  Tensor t = Tensor::Allocate(ir::DataType::FP16, {4, 4});
  EXPECT_NE(ErrorOf([&] { t.View({2, 0}, {3, 4}); }).find("leaves FP16[4, 4]"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { t.View({0}, {4}); }).find("needs 2 offsets"), std::string::npos);
}

TEST(RuntimeTensor, DisjointWindowsOfOneRootDoNotOverlap) {
  Tensor t = Tensor::Allocate(ir::DataType::FP32, {8, 16});
  Tensor left = t.View({0, 0}, {8, 8});
  Tensor right = t.View({0, 8}, {8, 8});
  Tensor top = t.View({0, 0}, {4, 16});
  EXPECT_FALSE(left.MayOverlap(right));  // byte ranges interleave; rectangles do not
  EXPECT_TRUE(left.MayOverlap(top));
  EXPECT_TRUE(t.MayOverlap(right));
  EXPECT_FALSE(t.View({0, 0}, {4, 16}).MayOverlap(t.View({4, 0}, {4, 16})));
  EXPECT_FALSE(t.View({0, 0}, {0, 16}).MayOverlap(t));  // empty windows touch nothing
}

TEST(RuntimeTensor, SeparateWrapsOfTheSameMemoryOverlapConservatively) {
  std::vector<float> memory(64);
  Tensor a = Tensor::Wrap(memory.data(), ir::DataType::FP32, {8, 8});
  Tensor b = Tensor::Wrap(memory.data() + 4, ir::DataType::FP32, {8, 4}, {8, 1});
  // Disjoint columns, but the runtime cannot know b is a window of a.
  EXPECT_TRUE(a.View({0, 0}, {8, 4}).MayOverlap(b));
  Tensor c = Tensor::Wrap(memory.data() + 32, ir::DataType::FP32, {4, 8});
  EXPECT_FALSE(a.View({0, 0}, {4, 8}).MayOverlap(c));
}

TEST(RuntimeTensor, StorageIsReleasedWithTheLastView) {
  int released = 0;
  std::vector<float> memory(4);
  {
    Tensor t = Tensor::Wrap(memory.data(), ir::DataType::FP32, {4}, {}, [&] { ++released; });
    Tensor v = t.View({1}, {2});
    t = Tensor();
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
}

TEST(RuntimeTensor, DlpackExportImportRoundTripsWithoutCopies) {
  Tensor t = Tensor::Allocate(ir::DataType::BF16, {4, 6});
  Tensor v = t.View({1, 2}, {2, 3});
  dlpack::ManagedTensor* managed = dlpack::Export(v);
  EXPECT_EQ(managed->dl_tensor.data, v.data());
  EXPECT_EQ(managed->dl_tensor.dtype.code, dlpack::kBfloat);
  EXPECT_EQ(managed->dl_tensor.strides[0], 6);
  Tensor back = dlpack::Import(managed);
  EXPECT_EQ(back.data(), v.data());
  EXPECT_EQ(back.shape(), v.shape());
  EXPECT_EQ(back.strides(), v.strides());
  EXPECT_EQ(back.dtype(), ir::DataType::BF16);
}

TEST(RuntimeTensor, DlpackRejectsOtherDevicesAndUnknownDtypesAndReleasesThem) {
  static int deleted = 0;
  int64_t shape[1] = {4};
  float data[4] = {};
  auto make = [&](int32_t device, dlpack::DataType dt) {
    auto* m = new dlpack::ManagedTensor{};
    m->dl_tensor = {data, {device, 0}, 1, dt, shape, nullptr, 0};
    m->deleter = [](dlpack::ManagedTensor* self) {
      ++deleted;
      delete self;
    };
    return m;
  };
  std::string cuda = ErrorOf([&] { dlpack::Import(make(dlpack::kCUDA, {dlpack::kFloat, 32, 1})); });
  EXPECT_NE(cuda.find("device 'cuda:0'"), std::string::npos) << cuda;
  std::string complex = ErrorOf([&] { dlpack::Import(make(dlpack::kCPU, {dlpack::kComplex, 64, 1})); });
  EXPECT_NE(complex.find("complex64 has no PyPTO equivalent"), std::string::npos) << complex;
  EXPECT_EQ(deleted, 2);
}

TEST(RuntimeTensor, DlpackVersionedImportKeepsTheReadOnlyFlag) {
  Tensor t = Tensor::Allocate(ir::DataType::INT16, {2, 3}).AsReadOnly();
  dlpack::ManagedTensorVersioned* managed = dlpack::ExportVersioned(t);
  EXPECT_EQ(managed->version.major, 1u);
  EXPECT_EQ(managed->flags & dlpack::kFlagReadOnly, dlpack::kFlagReadOnly);
  Tensor back = dlpack::ImportVersioned(managed);
  EXPECT_TRUE(back.read_only());
  EXPECT_TRUE(back.View({1, 0}, {1, 3}).read_only());
  EXPECT_FALSE(dlpack::ImportVersioned(dlpack::ExportVersioned(Tensor::Allocate(ir::DataType::INT16, {2}))).read_only());
}

TEST(RuntimeTensor, ReadOnlyMemoryCannotBeAKernelOutput) {
  Tensor t = Tensor::Allocate(ir::DataType::FP32, {4}).AsReadOnly();
  TaskArgs args;
  args.AddInput(t).AddNoDep(t);
  std::string message = ErrorOf([&] { args.AddInOut(t); });
  EXPECT_NE(message.find("argument 2 (InOut) is written by the kernel, but FP32[4] strides [1] read-only is read-only"),
            std::string::npos)
      << message;
  EXPECT_NE(ErrorOf([&] { args.AddOutputExisting(t.View({1}, {2})); }).find("read-only memory"), std::string::npos);
}

TEST(RuntimeTensor, PackedBytesGatherAWindowRowByRow) {
  Tensor t = Tensor::Allocate(ir::DataType::INT32, {4, 6});
  auto* data = static_cast<int32_t*>(t.data());
  for (int i = 0; i < 24; ++i) data[i] = i;
  Tensor window = t.View({1, 2}, {2, 3});
  std::vector<uint8_t> bytes = window.PackedBytes();
  ASSERT_EQ(bytes.size(), 6 * sizeof(int32_t));
  std::vector<int32_t> values(6);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  EXPECT_EQ(values, (std::vector<int32_t>{8, 9, 10, 14, 15, 16}));
  std::vector<uint8_t> whole = t.PackedBytes();
  EXPECT_EQ(whole.size(), 24 * sizeof(int32_t));
  EXPECT_EQ(std::memcmp(whole.data(), data, whole.size()), 0);
}

TEST(RuntimeTensor, PackedBytesOfAStridedWrapFollowTheStrides) {
  std::vector<float> column_major = {0, 1, 2, 3, 4, 5};  // a 2 x 3 matrix stored by columns
  Tensor t = Tensor::Wrap(column_major.data(), ir::DataType::FP32, {2, 3}, {1, 2});
  std::vector<uint8_t> bytes = t.PackedBytes();
  std::vector<float> rows(6);
  std::memcpy(rows.data(), bytes.data(), bytes.size());
  EXPECT_EQ(rows, (std::vector<float>{0, 2, 4, 1, 3, 5}));
  EXPECT_TRUE(Tensor::Allocate(ir::DataType::FP32, {0, 4}).PackedBytes().empty());
}

}  // namespace
}  // namespace pypto::runtime
