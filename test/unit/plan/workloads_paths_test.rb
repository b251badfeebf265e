# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# A user's paths on the command line: PATH[=STATUS[:BODY]], where a query
# string's own "=" (and its commas) stay part of the path.
class WorkloadPathsTest < Minitest::Test
  def spec(text) = Arena::Plan::Workloads.custom(text).then { |w| [w.path, w.expect_status, w.expect_body] }

  def test_query_strings_keep_their_equals_signs
    assert_equal ["/books?limit=2", 200, nil], spec("/books?limit=2")
    assert_equal ["/books?sort=title", 200, nil], spec("/books?sort=title")
    assert_equal ["/books?limit=200", 200, nil], spec("/books?limit=200")
    assert_equal ["/books?sort=title&limit=2", 200, nil], spec("/books?sort=title&limit=2")
    assert_equal ["/books?flag", 200, nil], spec("/books?flag")
  end

  def test_a_status_after_a_query_follows_its_last_value
    assert_equal ["/books?limit=2", 404, nil], spec("/books?limit=2=404")
    assert_equal ["/books?sort=title", 200, "Dune"], spec("/books?sort=title=200:Dune")
    assert_equal ["/search?q=a", 200, "x=1"], spec("/search?q=a=200:x=1")
  end

  def test_paths_without_a_query_read_as_before
    assert_equal ["/health", 204, nil], spec("/health=204")
    assert_equal ["/hi", 200, "hello"], spec("/hi=200:hello")
    assert_equal ["/x", 200, "a=b"], spec("/x=200:a=b")
    assert_equal ["/", 200, nil], spec("/")
  end

  def test_errors_say_a_requests_file_works
    error = assert_raises(Arena::UsageError) { spec("/health=ok") }
    assert_equal 'workload "/health=ok": status must be a number (PATH=STATUS[:BODY], e.g. /books?limit=2=200; ' \
      "or name the request in a requests file: --requests FILE)", error.message
    error = assert_raises(Arena::UsageError) { spec("books") }
    assert_equal 'workload "books" must be a path starting with / (built-in workload names are for the built-in app; ' \
      "or name the request in a requests file: --requests FILE)", error.message
  end

  def test_commas_inside_a_query_string_stay_in_it
    plan = Dir.mktmpdir do |dir|
      File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
      File.write(File.join(dir, "Gemfile"), "")
      Arena::TestHelp.plan("--app", File.join(dir, "config.ru"), "--servers", "puma", "--workload", "/books?ids=1,2,/health=204",
        "--workload", "/books?limit=2")
    end
    assert_equal [["/books?ids=1,2", 200], ["/health", 204], ["/books?limit=2", 200]],
      plan.workloads.map { |w| [w.path, w.expect_status] }
  end
end
