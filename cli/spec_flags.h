// SPDX-License-Identifier: Apache-2.0
// The spec flags of `dpadmm run`, its alias `dpadmm sharing` and `dpadmm sweep`: every RunSpec
// field as a flag, read by the one strict number parser, applied onto the effective spec only
// when given on the command line.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "command_common.h"
#include "core/numeric_parse.h"
#include "dpadmm/run/choices.h"
#include "dpadmm/run/run_spec.h"

namespace dpadmm::cli {

// Every numeric flag goes through the one strict parser (core/numeric_parse.h): no empty
// values, hex, spaces, trailing junk, NaN/Inf or out-of-range values; integers are plain decimal
// digits that fit the field. (CLI11 alone would read "" as 0, "010" as octal, wrap "-1" around
// for unsigned fields and saturate out-of-range int64 values.) An integer is rewritten in
// canonical decimal form before CLI11 converts it; a floating-point value is left as typed, so
// that CLI11's own conversion sees the same text as before.
template <class T>
CLI::Validator StrictNumber() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        T parsed{};
        std::string error = internal::ParseStrictNumber(value, parsed);
        if (!error.empty()) return error;
        if constexpr (std::is_integral_v<T>) value = std::to_string(parsed);
        return "";
      },
      "", "");
}

template <class T>
struct ElementOf {
  using type = T;
};
template <class T>
struct ElementOf<std::vector<T>> {
  using type = T;
};

// Attaches StrictNumber to a flag of field type T (or of its elements for a list).
template <class T>
CLI::Option* WithStrictNumber(CLI::Option* option) {
  using E = typename ElementOf<T>::type;
  if constexpr (std::is_arithmetic_v<E> && !std::is_same_v<E, bool> && !std::is_same_v<E, char>) {
    option->transform(StrictNumber<E>());
  }
  return option;
}

// ---------------------------------------------------------------------------------------------
// Spec flags: each is bound to a field of `flags_` (so --help shows RunSpec's defaults) and
// copied onto the effective spec only when given on the command line. The same flags serve
// `dpadmm run` and its alias `dpadmm sharing`.

// Sets the field `key` of the selected algorithm's parameter struct; false if it has none.
template <class T>
bool SetParam(AlgorithmSpec& algorithm, const std::string& key, const T& value) {
  bool found = false;
  std::visit(
      [&](auto& p) {
        using P = std::decay_t<decltype(p)>;
        P::Visit(p, [&](const char* k, auto& field) {
          if constexpr (std::is_assignable_v<decltype(field)&, const T&>) {
            if (key == k) {
              field = value;
              found = true;
            }
          }
        });
      },
      algorithm.params);
  return found;
}

// The algorithms whose parameter struct has `key` ("dvp, pvp, madmm").
std::string AlgorithmsWith(const std::string& key);

class SpecFlags {
 public:
  // `sharing_alias`: the flags of `dpadmm sharing` (the vertical family's defaults and its
  // old names: --algorithm admm means sharing).
  SpecFlags(CLI::App& app, bool sharing_alias)
      : app_(app),
        sharing_alias_(sharing_alias),
        flags_(RunSpec::Defaults(sharing_alias ? Algorithm::kSharing : Algorithm::kAdmm)) {
    Register();
  }
  SpecFlags(const SpecFlags&) = delete;  // the bindings point into this object
  SpecFlags& operator=(const SpecFlags&) = delete;

  // The algorithm the flags name, if --algorithm was given.
  std::optional<Algorithm> GivenAlgorithm() const {
    if (algorithm_option_->count() == 0) return std::nullopt;
    return ParseAlgorithm(*algorithm_name_);
  }
  Algorithm DefaultAlgorithm() const {
    return sharing_alias_ ? Algorithm::kSharing : Algorithm::kAdmm;
  }

  // Copies the flags the user passed onto `spec` (which already holds defaults + config).
  void ApplyGiven(RunSpec& spec) const {
    for (const auto& [option, apply] : bindings_) {
      if (option->count() > 0) apply(spec);
    }
  }

 private:
  Algorithm ParseAlgorithm(const std::string& name) const {
    if (sharing_alias_ && name == "admm") return Algorithm::kSharing;  // the old name
    return ParseChoice<Algorithm>(name, "--algorithm");
  }

  // A flag with a value, bound to the field that `field(spec)` returns.
  template <class Field>
  CLI::Option* Value(const std::string& name, Field field, const std::string& help) {
    using T = std::remove_reference_t<decltype(field(flags_))>;
    CLI::Option* option = WithStrictNumber<T>(app_.add_option(name, field(flags_), help));
    bindings_.emplace_back(option, [field, this](RunSpec& spec) { field(spec) = field(flags_); });
    return option;
  }
  // --noise-seed S: simulation mode (RunSpec::noise_seed); absent = private mode.
  CLI::Option* NoiseSeed() {
    auto value = std::make_shared<std::uint64_t>(0);
    storage_.push_back(value);
    CLI::Option* option =
        app_.add_option("--noise-seed", *value,
                        "Simulation: every node's noise key derived from S, so the noise is "
                        "reproducible and the run NOT private (default: private, keys from the "
                        "operating system, never stored)")
            ->type_name("S")
            ->default_str("");
    WithStrictNumber<std::uint64_t>(option);
    bindings_.emplace_back(option, [value](RunSpec& spec) { spec.noise_seed = *value; });
    return option;
  }
  // A comma-separated list of numbers.
  template <class Field>
  CLI::Option* List(const std::string& name, Field field, const std::string& help) {
    return Value(name, field, help)
        ->delimiter(',')
        ->allow_extra_args(false)
        ->type_name("LIST")
        ->default_str("");
  }
  // A switch that sets a bool field to `when_given` (also accepts --flag=false).
  template <class Field>
  CLI::Option* Switch(const std::string& name, Field field, bool when_given,
                      const std::string& help) {
    auto value = std::make_shared<bool>(false);
    storage_.push_back(value);
    CLI::Option* option = app_.add_flag(name, *value, help);
    bindings_.emplace_back(option, [field, value, when_given](RunSpec& spec) {
      field(spec) = *value ? when_given : !when_given;
    });
    return option;
  }
  // A choice of enum E, by the names of its table.
  template <class E, class Field>
  CLI::Option* ChoiceFlag(const std::string& name, Field field, const std::string& help) {
    auto text = std::make_shared<std::string>(ChoiceName(field(flags_)));
    storage_.push_back(text);
    CLI::Option* option = app_.add_option(name, *text, help + ": " + ChoiceList<E>());
    const std::string flag = name.substr(0, name.find(','));
    bindings_.emplace_back(
        option, [field, text, flag](RunSpec& spec) { field(spec) = ParseChoice<E>(*text, flag); });
    return option;
  }
  // A parameter of the selected algorithm's struct (algorithm.<name>.<key>); an error names
  // the algorithms that have it when the selected one does not.
  template <class T>
  CLI::Option* Param(const std::string& name, const std::string& key, T shown_default,
                     const std::string& help) {
    auto value = std::make_shared<T>(shown_default);
    storage_.push_back(value);
    CLI::Option* option = WithStrictNumber<T>(app_.add_option(name, *value, help));
    BindParam(option, name, key, value);
    return option;
  }
  // Sets algorithm.<name>.<key> from `value` when `option` was given.
  template <class T>
  void BindParam(CLI::Option* option, const std::string& name, const std::string& key,
                 std::shared_ptr<T> value) {
    const std::string flag = name.substr(0, name.find(','));
    bindings_.emplace_back(option, [key, value, flag](RunSpec& spec) {
      if (!SetParam(spec.algorithm, key, *value)) {
        Fail(flag + " is not used by algorithm '" + ChoiceName(spec.algorithm.name()) +
             "' (it sets algorithm.<name>." + key + " of: " + AlgorithmsWith(key) + ")");
      }
    });
  }
  template <class T>
  CLI::Option* ParamList(const std::string& name, const std::string& key, const std::string& help) {
    return Param(name, key, std::vector<T>{}, help)
        ->delimiter(',')
        ->allow_extra_args(false)
        ->type_name("LIST")
        ->default_str("");
  }
  CLI::Option* ParamSwitch(const std::string& name, const std::string& key,
                           const std::string& help) {
    auto value = std::make_shared<bool>(false);
    storage_.push_back(value);
    CLI::Option* option = app_.add_flag(name, *value, help);
    BindParam(option, name, key, value);
    return option;
  }

  void Register();  // every flag (spec_flags.cpp)

  CLI::App& app_;
  bool sharing_alias_;
  RunSpec flags_;  // holds the defaults shown in --help, then the parsed values
  std::shared_ptr<std::string> algorithm_name_;
  CLI::Option* algorithm_option_ = nullptr;
  std::vector<std::pair<CLI::Option*, std::function<void(RunSpec&)>>> bindings_;
  std::vector<std::shared_ptr<void>> storage_;  // values of flags that are not spec fields
};

}  // namespace dpadmm::cli
