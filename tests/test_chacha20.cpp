// SPDX-License-Identifier: Apache-2.0
// ChaCha20 against the test vectors of RFC 8439 (2.3.2 block function, 2.4.2 encryption,
// Appendix A.1 block function test vectors #1-#5).
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "dpadmm/privacy/chacha20.h"

namespace dpadmm {
namespace {

std::vector<std::uint8_t> Hex(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::uint8_t> out;
  std::string byte;
  while (in >> byte) out.push_back(static_cast<std::uint8_t>(std::stoul(byte, nullptr, 16)));
  return out;
}

std::vector<std::uint8_t> Block(const std::vector<std::uint8_t>& key, std::uint32_t counter,
                                const std::vector<std::uint8_t>& nonce) {
  // The keystream block is the encryption of 64 zero bytes.
  std::vector<std::uint8_t> zeros(64, 0), out(64);
  ChaCha20Xor(key.data(), counter, nonce.data(), zeros.data(), out.data(), 64);
  return out;
}

std::vector<std::uint8_t> Key(int index, std::uint8_t value) {
  std::vector<std::uint8_t> k(32, 0);
  if (index >= 0) k[static_cast<std::size_t>(index)] = value;
  return k;
}

TEST(ChaCha20, Rfc8439Section232BlockFunction) {
  std::vector<std::uint8_t> key(32);
  for (int k = 0; k < 32; ++k) key[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
  const auto nonce = Hex("00 00 00 09 00 00 00 4a 00 00 00 00");
  EXPECT_EQ(Block(key, 1, nonce), Hex("10 f1 e7 e4 d1 3b 59 15 50 0f dd 1f a3 20 71 c4 "
                                      "c7 d1 f4 c7 33 c0 68 03 04 22 aa 9a c3 d4 6c 4e "
                                      "d2 82 64 46 07 9f aa 09 14 c2 d7 05 d9 8b 02 a2 "
                                      "b5 12 9c d1 de 16 4e b9 cb d0 83 e8 a2 50 3c 4e"));
  // The word form of the same block (the state after adding the input, RFC 2.3.2).
  std::uint32_t words[8], n[3] = {0x09000000u, 0x4a000000u, 0u}, out[16];
  for (int k = 0; k < 8; ++k) {
    words[k] = static_cast<std::uint32_t>(4 * k) | (static_cast<std::uint32_t>(4 * k + 1) << 8) |
               (static_cast<std::uint32_t>(4 * k + 2) << 16) |
               (static_cast<std::uint32_t>(4 * k + 3) << 24);
  }
  ChaCha20Block(words, 1, n, out);
  EXPECT_EQ(out[0], 0xe4e7f110u);
  EXPECT_EQ(out[15], 0x4e3c50a2u);
}

TEST(ChaCha20, Rfc8439Section242Encryption) {
  std::vector<std::uint8_t> key(32);
  for (int k = 0; k < 32; ++k) key[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
  const auto nonce = Hex("00 00 00 00 00 00 00 4a 00 00 00 00");
  const std::string text =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  std::vector<std::uint8_t> out(text.size());
  ChaCha20Xor(key.data(), 1, nonce.data(), reinterpret_cast<const std::uint8_t*>(text.data()),
              out.data(), text.size());
  EXPECT_EQ(out, Hex("6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81 "
                     "e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b "
                     "f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57 "
                     "16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8 "
                     "07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e "
                     "52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36 "
                     "5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42 "
                     "87 4d"));
  // Decryption is the same operation.
  std::vector<std::uint8_t> back(out.size());
  ChaCha20Xor(key.data(), 1, nonce.data(), out.data(), back.data(), out.size());
  EXPECT_EQ(std::string(back.begin(), back.end()), text);
}

TEST(ChaCha20, Rfc8439AppendixA1BlockVectors) {
  const auto zero_nonce = Hex("00 00 00 00 00 00 00 00 00 00 00 00");
  EXPECT_EQ(Block(Key(-1, 0), 0, zero_nonce),
            Hex("76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28 "
                "bd d2 19 b8 a0 8d ed 1a a8 36 ef cc 8b 77 0d c7 "
                "da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37 "
                "6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65 86"));
  EXPECT_EQ(Block(Key(-1, 0), 1, zero_nonce),
            Hex("9f 07 e7 be 55 51 38 7a 98 ba 97 7c 73 2d 08 0d "
                "cb 0f 29 a0 48 e3 65 69 12 c6 53 3e 32 ee 7a ed "
                "29 b7 21 76 9c e6 4e 43 d5 71 33 b0 74 d8 39 d5 "
                "31 ed 1f 28 51 0a fb 45 ac e1 0a 1f 4b 79 4d 6f"));
  EXPECT_EQ(Block(Key(31, 1), 1, zero_nonce),
            Hex("3a eb 52 24 ec f8 49 92 9b 9d 82 8d b1 ce d4 dd "
                "83 20 25 e8 01 8b 81 60 b8 22 84 f3 c9 49 aa 5a "
                "8e ca 00 bb b4 a7 3b da d1 92 b5 c4 2f 73 f2 fd "
                "4e 27 36 44 c8 b3 61 25 a6 4a dd eb 00 6c 13 a0"));
  EXPECT_EQ(Block(Key(1, 0xff), 2, zero_nonce),
            Hex("72 d5 4d fb f1 2e c4 4b 36 26 92 df 94 13 7f 32 "
                "8f ea 8d a7 39 90 26 5e c1 bb be a1 ae 9a f0 ca "
                "13 b2 5a a2 6c b4 a6 48 cb 9b 9d 1b e6 5b 2c 09 "
                "24 a6 6c 54 d5 45 ec 1b 73 74 f4 87 2e 99 f0 96"));
  EXPECT_EQ(Block(Key(-1, 0), 0, Hex("00 00 00 00 00 00 00 00 00 00 00 02")),
            Hex("c2 c6 4d 37 8c d5 36 37 4a e2 04 b9 ef 93 3f cd "
                "1a 8b 22 88 b3 df a4 96 72 ab 76 5b 54 ee 27 c7 "
                "8a 97 0e 0e 95 5c 14 f3 a8 8e 74 1b 97 c2 86 f7 "
                "5f 8f c2 99 e8 14 83 62 fa 19 8a 39 53 1b ed 6d"));
}

}  // namespace
}  // namespace dpadmm
