# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The verdict on a measurement's noise figures, on figures of known truth.
class NoiseVerdictTest < Minitest::Test
  cover "Arena::Verdicts::Noise*"

  Noise = Arena::Verdicts::Noise

  def figures(other:, steal:) = Arena::Results::NoiseFigures.new(other_cpu_pct: other, steal_pct: steal)

  def test_a_figure_at_its_limit_is_quiet_and_one_past_it_is_noisy
    quiet = Noise.judge(figures(other: 20.0, steal: 5.0))
    assert_equal ["quiet", nil], [quiet.word, quiet.reason]
    assert quiet.judged?
    other = Noise.judge(figures(other: 20.1, steal: 5.0))
    assert_equal ["noisy", "other processes took 20% of a core (limit 20%)"], [other.word, other.reason]
    steal = Noise.judge(figures(other: 20.0, steal: 5.04))
    assert_equal ["noisy", "steal 5.0% (limit 5%)"], [steal.word, steal.reason]
  end

  def test_both_over_are_said_together_other_first
    v = Noise.judge(figures(other: 45.6, steal: 7.25))
    assert_equal "noisy", v.word
    assert_equal "other processes took 46% of a core (limit 20%); steal 7.2% (limit 5%)", v.reason
  end

  def test_no_figures_cannot_be_judged
    v = Noise.judge(nil)
    refute v.judged?
    assert_equal "no noise figures", v.reason
  end
end
