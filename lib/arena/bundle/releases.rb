# frozen_string_literal: true

require "net/http"
require "uri"

module Arena
  module Bundle
    # A gem's released versions with their own dependencies, from the
    # registry's compact index (GET /info/NAME: one line a release,
    # `1.2.0-x86_64-linux dep:>= 1&< 3,other:~> 2|checksum:...,ruby:>= 3.1`).
    # Where the server's newest conflicts with the app's lock, the overlay
    # tries the newest others whose own dependencies the app's locked
    # versions meet.
    module Releases
      Release = Struct.new(:version, :platform, :dependencies, :ruby, keyword_init: true) do
        def requirement(text) = Gem::Requirement.new(text.split("&"))
      end

      module_function

      def parse(text)
        text.to_s.lines.filter_map do |line|
          head, meta = line.chomp.split("|", 2)
          full, deps = head.to_s.split(" ", 2)
          next if full.nil? || full == "---" || meta.nil?
          version, platform = full.split("-", 2)
          dependencies = deps.to_s.split(",").to_h { |d| d.split(":", 2) }
          ruby = meta.split(",").find { |m| m.start_with?("ruby:") }&.delete_prefix("ruby:")
          Release.new(version: Gem::Version.new(version), platform: platform || "ruby", dependencies: dependencies, ruby: ruby)
        rescue ArgumentError
          nil
        end
      end

      # The registry's answer for one gem; nil when it cannot be had.
      def fetch(name, source: "https://rubygems.org", timeout: 5)
        uri = URI.join(source.end_with?("/") ? source : "#{source}/", "info/#{name}")
        response = Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == "https", open_timeout: timeout, read_timeout: timeout) do |http|
          http.get(uri.request_uri)
        end
        response.is_a?(Net::HTTPSuccess) ? response.body : nil
      rescue
        nil
      end

      # Versions (newest first, at most `limit`, none prerelease, none
      # `except`) that run on this Ruby and this platform and whose own
      # dependencies are met by every version the app locks. A gem that
      # ships builds for this platform (platforms.last) is taken only at
      # versions that have one: another would be compiled (Itsi's Rust).
      def fitting(releases, app_versions:, except: [], limit: 3, ruby: RUBY_VERSION, platforms: PLATFORMS)
        fits = candidates(releases, app_versions, ruby, platforms).reject { |r| except.include?(r.version.to_s) }
        fits = fits.select { |r| r.platform == platforms.last } if built?(releases, platforms)
        newest(fits, limit)
      end

      # The newest version that fits but has no build for this platform,
      # where the gem ships such builds; nil otherwise.
      def compiled_only(releases, app_versions:, ruby: RUBY_VERSION, platforms: PLATFORMS)
        return nil unless built?(releases, platforms)
        fits = candidates(releases, app_versions, ruby, platforms)
        built = fits.select { |r| r.platform == platforms.last }.map(&:version)
        newest(fits.reject { |r| built.include?(r.version) }, 1).first
      end

      PLATFORMS = ["ruby", Gem::Platform.local.to_s].freeze

      def candidates(releases, app_versions, ruby, platforms)
        releases.select do |r|
          !r.version.prerelease? && platforms.include?(r.platform) &&
            (r.ruby.nil? || r.requirement(r.ruby).satisfied_by?(Gem::Version.new(ruby))) && meets?(r, app_versions)
        end
      end

      def built?(releases, platforms) = releases.any? { |r| r.platform == platforms.last }

      def newest(releases, limit) = releases.map(&:version).uniq.sort.reverse.first(limit).map(&:to_s)

      def meets?(release, app_versions)
        release.dependencies.all? do |name, req|
          locked = app_versions[name]
          locked.nil? || release.requirement(req).satisfied_by?(Gem::Version.new(locked))
        end
      end
    end
  end
end
