# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "prime"
require "rack"
require "rack/mock"
require "minitest/mock"

# The built-in app in-process, no server: /primes must do the 2016
# comparison's own work, Prime.first(n).sum (what that costs,
# bench/workload_costs checks).
class BuiltinAppTest < Minitest::Test
  APP = Rack::Builder.parse_file(File.join(Arena::ROOT, "lib/arena/app/arena.ru")).then { |a| a.is_a?(Array) ? a.first : a }

  def get(path) = Rack::MockRequest.new(APP).get(path)

  def test_primes_is_the_sum_of_prime_first_n
    [1, 10, 1000, 5000].each do |n|
      response = get("/primes?count=#{n}")
      assert_equal 200, response.status
      assert_equal Prime.first(n).sum.to_s, response.body, "count=#{n}"
    end
    assert_equal Arena::Plan::Workloads::PRIMES_1000.to_s, get("/primes?count=1000").body
  end

  def test_trial_gives_the_same_sum_by_its_own_arithmetic
    assert_equal Prime.first(1000).sum.to_s, get("/trial?count=1000").body
  end

  # /primes does the seed's own work: one call of Prime.first(n), summed.
  # What that costs beside the library call alone is a speed target, so
  # bench/workload_costs measures and checks it, not a timed test here.
  def test_primes_is_one_call_of_prime_first
    calls = []
    first = Prime.method(:first)
    spy = lambda do |n|
      calls << n
      first.call(n)
    end
    Prime.stub(:first, spy) do
      get("/primes?count=1000")
      get("/trial?count=1000")
    end
    assert_equal [1000], calls, "/primes calls Prime.first(1000) once; /trial finds its primes itself"
  end
end
