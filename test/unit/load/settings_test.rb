# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# The load-settings table on values: each type's cast, each kind of check and
# the one line a bad value gets; Settings' defaults. (The plan and arena.yml
# tests go through the same table with a parser in front; these run in
# microseconds, so mutant can afford them.)
class LoadSettingsTest < Minitest::Test
  cover "Arena::Load::SETTING*"
  cover "Arena::Load::Settings*"
  cover "Arena::Load.gather"

  def setting(name) = Arena::Load.setting(name)

  def refused(name, value)
    assert_raises(Arena::UsageError, "#{name} #{value.inspect}") { setting(name).cast(value) }.message
  end

  def test_whole_numbers_and_their_bounds
    c = setting(:connections)
    assert_equal "-c", c.switch
    assert_equal 8, c.cast("8")
    assert_equal 8, c.cast(8)
    assert_equal 1, c.cast("1")
    assert_equal 20_000, c.cast("20000")
    assert_equal "-c takes whole numbers", refused(:connections, "8.5")
    assert_equal "-c takes whole numbers", refused(:connections, "eight")
    assert_equal "-c takes whole numbers", refused(:connections, 8.5), "a file's 8.5 is not cut to 8"
    assert_equal "-c must be between 1 and 20000", refused(:connections, "0")
    assert_equal "-c must be between 1 and 20000", refused(:connections, "20001")
  end

  def test_numbers_and_positive_ranges
    assert_equal 2.5, setting(:duration).cast("2.5")
    assert_equal 2.0, setting(:duration).cast(2)
    assert_kind_of Float, setting(:duration).cast("2")
    assert_equal 1e7, setting(:duration).cast("1e7")
    assert_equal Float::EPSILON, setting(:duration).cast(Float::EPSILON.to_s)
    assert_equal "-d must be a number", refused(:duration, "soon")
    assert_equal "-d must be greater than 0 and at most 10000000", refused(:duration, "0")
    assert_equal "-d must be greater than 0 and at most 10000000", refused(:duration, "-1")
    assert_equal "-d must be greater than 0 and at most 10000000", refused(:duration, "1.5e7")
    # A range that does not start at the smallest positive number says its ends.
    assert_equal 0.0, setting(:warmup).cast("0")
    assert_equal "-w must be between 0 and 3600", refused(:warmup, "3600.5")
    assert_equal "--slo must be between 0.1 and 600000", refused(:slo_ms, "0")
    assert_equal 0.1, setting(:slo_ms).cast("0.1")
    assert_equal "--slow-share must be between 0.1 and 90", refused(:slow_share, "90.01")
  end

  def test_a_positive_range_without_an_end
    open = Arena::Load::SETTING.new(name: :x, flag: "--x SEC", type: Float, check: (Float::EPSILON..Float::INFINITY))
    assert_equal 1e300, open.cast("1e300")
    assert_equal "--x must be greater than 0", assert_raises(Arena::UsageError) { open.cast("0") }.message
  end

  def test_words_from_a_list
    assert_equal "off", setting(:keep_alive).cast("off")
    assert_equal "both", setting(:keep_alive).cast(:both)
    assert_equal "--keep-alive must be one of on, off, both", refused(:keep_alive, "maybe")
    assert_equal "read", setting(:slow_mode).cast("read")
    assert_equal "--slow-mode must be one of headers, upload, read", refused(:slow_mode, "write")
  end

  def test_lists_of_whole_numbers_each_checked
    levels = setting(:levels)
    assert_equal [1, 2, 40], levels.cast("1,2,40")
    assert_equal [3, 4], levels.cast([3, "4"])
    assert_equal [5], levels.cast(5)
    assert_equal "--levels takes whole numbers", refused(:levels, "1,x")
    assert_equal "--levels must be between 1 and 20000", refused(:levels, "1,0,2")
    assert_equal "--levels must be between 1 and 20000", refused(:levels, [1, 20_001])
  end

  def test_strings_and_paths
    assert_equal "/sleep?ms=200", setting(:slow_request).cast("/sleep?ms=200")
    assert_equal "/1", setting(:slow_request).cast(:"/1")
    msg = "--slow-request must be a path starting with / (query allowed, no spaces)"
    assert_equal msg, refused(:slow_request, "sleep")
    assert_equal msg, refused(:slow_request, "/a b")
    assert_equal msg, refused(:slow_request, "/a\n/b")
    free = Arena::Load::SETTING.new(name: :x, flag: "--x WORD", type: String)
    assert_equal "12", free.cast(12)
  end

  def test_a_type_that_casts_itself
    spec = "hold 100/s 5s"
    assert_equal spec, setting(:profile).cast(spec)
    assert_match(/\A--profile "hold": /, refused(:profile, "hold"))
  end

  def test_the_table_looks_up_by_name_and_gives_defaults
    assert_equal "--max-time SEC", setting(:max_time).flag
    assert_nil Arena::Load.setting(:nothing)
    defaults = Arena::Load.defaults
    assert_equal 16, defaults.fetch(:connections)
    assert_nil defaults.fetch(:slo_ms)
    assert_equal Arena::Load::TABLE.map(&:name), defaults.keys
  end

  def test_engine_settings_take_the_tables_defaults_and_keep_alive
    s = Arena::Load::Settings.build(connections: 3)
    assert s.frozen?
    assert_equal 3, s.connections
    assert_equal true, s.keep_alive
    assert_equal 1, s.threads
    assert_equal 10.0, s.timeout
    assert_nil s.duration
    assert_equal 4, Arena::Load::Settings.build(threads: 4, keep_alive: false).threads
    assert_equal false, Arena::Load::Settings.build(keep_alive: false).keep_alive
    changed = s.with(rate: 50.0, connections: 7)
    assert changed.frozen?
    assert_kind_of Arena::Load::Settings, changed
    assert_equal [7, 50.0, 1, true], [changed.connections, changed.rate, changed.threads, changed.keep_alive]
    assert_equal 3, s.connections, "with leaves the original as it was"
  end

  # The rounds' latency merges their histograms (Report::Rows): every engine
  # run is asked for them, once, before the target.
  def test_the_engine_always_writes_its_histograms
    engine = Arena::Load::Engine.new(dir: Dir.tmpdir, path: "/bin/true", machine: Arena::Plan::Machine.new(cores: 2, shared: false))
    argv = engine.argv("http://127.0.0.1:1/server", Arena::Load::Settings.build(connections: 4, duration: 0.3))
    assert_equal 1, argv.count("--histograms"), argv.inspect
    assert_equal "http://127.0.0.1:1/server", argv.last
  end

  # The warm-up to a steady state is bounded by 2 x -d, at least 2 s, at most 10 s.
  def test_the_warm_up_bound_follows_d_between_2_and_10_seconds
    bound = ->(d, max = nil) { Arena::Load::Options.new(**Arena::Load.defaults.merge(duration: d, warmup_max: max)).warmup_limit }
    assert_equal 2.0, bound.call(0.3)
    assert_equal 3.0, bound.call(1.5)
    assert_equal 10.0, bound.call(30.0)
    assert_equal 0.0, bound.call(0.3, 0.0), "--warmup-max 0: none"
  end

  # A scenario declares the rows only it reads; the table gathers them in
  # the place ROWS gives them, the order --help and arena.yml list.
  def test_scenarios_own_their_rows_and_the_table_keeps_its_order
    assert_equal %i[soak_time soak_rate], Arena::Scenarios::Soak.setting_rows.map(&:name)
    assert_equal %i[step max_connections], Arena::Scenarios::Breakpoint.setting_rows.map(&:name)
    assert_empty Arena::Scenarios::Rate.setting_rows
    assert_equal %i[connections duration warmup round_requests warmup_max threads timeout keep_alive reps requests levels
      slo_ms step max_connections max_time slow_clients slow_mode soak_time soak_rate slow_request slow_share profile
      queue_time transport h2_streams tls_resume max_workers settle_timeout], Arena::Load::TABLE.map(&:name)
    assert_equal Arena::Load::TABLE.map(&:name), Arena::Load::Options.members
    owned = Arena::Scenarios.all.flat_map(&:setting_rows)
    assert_empty owned.select(&:engine), "an engine row is a shared row"
    assert_equal owned.size, Arena::Load::TABLE.count { |row| owned.include?(row) }
  end

  def test_gather_places_a_scenarios_rows_and_appends_an_unplaced_ones
    row = ->(name) { Arena::Load::SETTING.new(name: name, flag: "--#{name} N", type: Integer, help: name.to_s) }
    scenario = Struct.new(:key, :setting_rows)
    rows = [row.call(:a), Arena::Load::Owned.new("x"), row.call(:b)]
    placed = scenario.new("x", [row.call(:x1), row.call(:x2)])
    later = scenario.new("y", [row.call(:y1)])
    none = scenario.new("z", [])
    assert_equal %i[a x1 x2 b y1], Arena::Load.gather(rows, [later, none, placed]).map(&:name)
    assert_equal %i[a b], Arena::Load.gather(rows, [scenario.new("x", [])]).map(&:name)
    twice = assert_raises(ArgumentError) { Arena::Load.gather(rows, [placed, scenario.new("y", [row.call(:a)])]) }
    assert_equal "load settings declared twice: a", twice.message
    assert_raises(KeyError, "a place for a scenario that is not there") { Arena::Load.gather(rows, [later]) }
  end
end
