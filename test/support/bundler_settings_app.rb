# frozen_string_literal: true

require "open3"
require "fileutils"
require "rbconfig"

module Arena
  # A tiny Rack app installed as apps are deployed: made in @app from this
  # machine's installed gems, it locks a gem nobody installed (notinstalled,
  # in :development) and Puma only in :test, with a .bundle/config that may
  # leave groups out and keep its gems under vendor/bundle.
  module BundlerSettingsApp
    CLEAN = %w[BUNDLE_GEMFILE RUBYOPT RUBYLIB BUNDLE_BIN_PATH BUNDLER_SETUP BUNDLER_VERSION BUNDLE_APP_CONFIG
      BUNDLE_PATH BUNDLE_WITHOUT BUNDLE_WITH BUNDLE_ONLY].to_h { |k| [k, nil] }.freeze

    GEMFILE = <<~RUBY
      source "https://rubygems.org"
      gem "rack"
      group :test do
        gem "puma"
      end
      group :development do
        gem "notinstalled"
      end
    RUBY

    private

    def make_app(without:, path: false)
      FileUtils.mkdir_p(@app)
      File.write(File.join(@app, "config.ru"), "run ->(env) { [200, {'content-type' => 'text/plain'}, ['hi']] }\n")
      gemfile = GEMFILE
      if path
        install_gem("vendored_probe", "VendoredProbe")
        gemfile += "gem \"vendored_probe\"\n"
      end
      File.write(File.join(@app, "Gemfile"), gemfile.sub(/^  gem "notinstalled"\n/, ""))
      # Locked from the system's gems and the app's vendored one.
      sh!(@app, "bundle", "lock", "--local", env: {"GEM_PATH" => "#{vendor_dir}:"})
      vendor("rack") if path
      # A gem the app locks in a group it leaves out, installed nowhere here.
      File.write(File.join(@app, "Gemfile"), gemfile)
      lock = File.read(File.join(@app, "Gemfile.lock"))
      File.write(File.join(@app, "Gemfile.lock"), lock.sub("  specs:\n", "  specs:\n    notinstalled (1.0.0)\n").sub("DEPENDENCIES\n", "DEPENDENCIES\n  notinstalled\n"))
      bundle_config({"BUNDLE_WITHOUT" => without, "BUNDLE_PATH" => ("vendor/bundle" if path)}.compact)
    end

    # A gem (1.0.0) made here and installed under the app's vendor/bundle only.
    def install_gem(name, constant)
      src = File.join(@tmp, name)
      FileUtils.mkdir_p(File.join(src, "lib"))
      File.write(File.join(src, "lib", "#{name}.rb"), "module #{constant}\n  VERSION = \"1.0.0\"\nend\n")
      File.write(File.join(src, "#{name}.gemspec"), <<~RUBY)
        Gem::Specification.new do |s|
          s.name = #{name.inspect}; s.version = "1.0.0"; s.summary = "made by a test"; s.authors = ["arena"]
          s.files = ["lib/#{name}.rb"]
        end
      RUBY
      sh!(src, "gem", "build", "#{name}.gemspec")
      sh!(src, "gem", "install", "--local", "--no-document", "--ignore-dependencies", "--install-dir", vendor_dir, "#{name}-1.0.0.gem")
    end

    def vendor_dir = File.join(@app, "vendor/bundle", RUBY_ENGINE, RbConfig::CONFIG["ruby_version"])

    # The locked version of an installed gem, installed again under vendor/bundle.
    def vendor(name)
      file = Gem::Specification.find_by_name(name, locked(name)).cache_file
      sh!(@app, "gem", "install", "--local", "--no-document", "--ignore-dependencies", "--install-dir", vendor_dir, file)
    end

    def locked(name) = Bundler::LockfileParser.new(File.read(File.join(@app, "Gemfile.lock"))).specs.find { |s| s.name == name }.version.to_s

    def bundle_config(hash)
      FileUtils.mkdir_p(File.join(@app, ".bundle"))
      File.write(File.join(@app, ".bundle", "config"), "---\n" + hash.map { |k, v| "#{k}: #{v.inspect}\n" }.join)
    end

    def sh!(dir, *argv, env: {})
      out, status = Open3.capture2e(CLEAN.merge(env), *argv, chdir: dir)
      assert status.success?, "#{argv.join(" ")}: #{out}"
    end

    # Every file under dir with its bytes: the app's tree before and after.
    def tree(dir) = Dir.glob("**/*", File::FNM_DOTMATCH, base: dir).sort.to_h { |f| [f, File.file?(File.join(dir, f)) ? File.binread(File.join(dir, f)) : :dir] }
  end
end
