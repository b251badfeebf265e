# frozen_string_literal: true

require "test_helper"
require "arena"
require "arena/tune"

module Arena
  # The session's lines about the configs it compares: a line of at most 100
  # columns, the configs that do not fit on lines of their own.
  class TuneSessionTest < Minitest::Test
    def wrapped(head, items) = Tune::AnswerWords.listed(head, items)

    def test_configs_that_fit_share_the_line
      assert_equal ["confirmation: answer iodine:workers=1, baseline puma:threads=3"],
        wrapped("confirmation:", ["answer iodine:workers=1", "baseline puma:threads=3"])
    end

    def test_a_config_that_does_not_fit_goes_on_a_line_of_its_own
      items = ["answer iodine:workers=1,threads=1", "runner-up itsi:workers=1,threads=5,fibers=false", "baseline puma:workers=0,threads=3"]
      lines = wrapped("confirmation:", items)
      assert_equal ["confirmation: answer iodine:workers=1,threads=1, runner-up itsi:workers=1,threads=5,fibers=false",
        "  baseline puma:workers=0,threads=3"], lines
      assert lines.all? { |l| l.size <= 100 }
    end
  end
end
