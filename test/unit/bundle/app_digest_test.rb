# frozen_string_literal: true

require "test_helper"
require "arena"

module Arena
  # What says an app is the one a tune measured: its lock's digest and its
  # code's checksum, which a change of source moves and serving does not.
  class AppDigestTest < Minitest::Test
    cover "Arena::Bundle::AppDigest*"

    def setup
      @dir = Dir.mktmpdir("arena-digest")
      write("config.ru", "run ->(_) { [200, {}, ['ok']] }\n")
      write("Gemfile", "source 'https://rubygems.org'\ngem 'rack'\n")
      write("Gemfile.lock", "GEM\n  specs:\n    rack (3.1.0)\n")
      write("app/models/book.rb", "class Book; end\n")
      @app = Bundle::AppSource.user(@dir)
    end

    def teardown = FileUtils.rm_rf(@dir)

    def write(path, text)
      full = File.join(@dir, path)
      FileUtils.mkdir_p(File.dirname(full))
      File.write(full, text)
    end

    def digest = Bundle::AppDigest.of(@app)

    def test_the_same_app_reads_the_same
      before = digest
      write("log/production.log", "served\n")
      write("tmp/cache/x.rb", "cached\n")
      write("README.md", "notes\n")
      assert_nil digest.change_from(before), "what the app writes as it runs, and what it does not run, leave it alone"
      assert_equal 64, before.code.size
    end

    def test_a_change_of_code_or_lock_is_named
      before = digest
      write("app/models/book.rb", "class Book; def title = 'x'; end\n")
      assert_equal "its code changed", digest.change_from(before)
      code = digest
      write("app/models/shelf.rb", "class Shelf; end\n")
      assert_equal "its code changed", digest.change_from(code), "a new file"
      moved = digest
      write("Gemfile.lock", "GEM\n  specs:\n    rack (3.1.1)\n")
      assert_equal "its Gemfile.lock changed", digest.change_from(moved)
    end
  end
end
