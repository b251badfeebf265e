# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

class RuntimeTest < Minitest::Test
  def build(*argv) = Arena::TestHelp.plan(*argv, machine: Arena::Plan::Machine.new(cores: 2).freeze)

  def test_tokens_combine_into_the_label_and_environment
    runtime = Arena::Plan::Runtime.parse("yjit,malloc_arena_max=2")
    assert_equal %w[yjit malloc_arena_max=2], runtime.to_a
    puma = Arena::Servers::Puma.new(settings: {"workers" => 2}, runtime: runtime)
    assert_equal "puma:workers=2,threads=5,preload=false+yjit+malloc_arena_max=2", puma.label
    env = puma.env(app: Arena::Bundle::AppSource.builtin)
    assert_equal "1", env["RUBY_YJIT_ENABLE"]
    assert_equal "2", env["MALLOC_ARENA_MAX"]
    assert env.key?("LD_PRELOAD") && env["LD_PRELOAD"].nil?, "an inherited LD_PRELOAD is unset"
  end

  def test_no_runtime_leaves_the_label_as_it_was
    assert_equal "unicorn:workers=2,preload=true,timeout=60", Arena::Servers::Unicorn.new(settings: {"workers" => 2}).label
  end

  def test_flag_and_a_servers_own_tail_merge_and_the_tail_wins
    plan = build("--servers", "puma:workers=1+malloc=glibc unicorn:workers=1", "--runtime", "yjit", "--runtime", "malloc=jemalloc")
    skip "libjemalloc2 not installed" unless Arena::Plan::Runtime.jemalloc_path
    assert_equal ["puma:workers=1,threads=5,preload=false+yjit+malloc=glibc",
      "unicorn:workers=1,preload=true,timeout=60+yjit+malloc=jemalloc"], plan.servers.map(&:label)
    assert_match(/libjemalloc\.so\.2\z/, plan.servers.last.env(app: plan.app)["LD_PRELOAD"])
  end

  def test_a_label_is_a_valid_servers_spec
    label = "puma:workers=2,threads=5,preload=false+yjit+malloc_arena_max=2"
    assert_equal label, build("--servers", label).servers.first.label
  end

  def test_bad_runtimes_are_one_line_usage_errors
    {"tcmalloc" => /unknown runtime "tcmalloc"/, "malloc=tc" => /malloc must be glibc or jemalloc/,
     "malloc_arena_max=0" => /from 1 to 64/, "yjit=1" => /takes no value/}.each do |value, message|
      error = assert_raises(Arena::UsageError) { build("--servers", "puma", "--runtime", value) }
      assert_match message, error.message
    end
    error = assert_raises(Arena::UsageError) { build("--servers", "puma-jruby+yjit") }
    assert_match(/needs MRI/, error.message)
  end

  def test_worker_settings_name_each_servers_worker_count
    {"puma" => "workers", "unicorn" => "workers", "pitchfork" => "workers", "falcon" => "count", "passenger" => "pool",
     "iodine" => "workers", "agoo" => "workers", "uwsgi" => "processes", "itsi" => "workers", "webrick" => nil,
     "thin" => nil}.each do |key, setting|
      klass = Arena::Servers.fetch(key)
      if setting
        assert_equal setting, klass.worker_setting, key
        assert_includes klass.settings.keys, setting
      else
        assert_nil klass.worker_setting, key
      end
    end
  end
end
