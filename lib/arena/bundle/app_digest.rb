# frozen_string_literal: true

require "digest"
require "find"
require_relative "../results/app_digest"

module Arena
  module Bundle
    # What identifies the app a tune measured, so that a later `arena tune
    # --resume` adds rounds only to the same app: the digest of its
    # Gemfile.lock (the gems it runs) and a checksum of its code (each source
    # file's path and content; for the built-in app, lib/arena/app). The
    # directories an app writes to while it runs (log, tmp, storage), its
    # installed gems and its assets are left out: serving changes them.
    # Taken here, recorded and compared as a Results::AppDigest.
    module AppDigest
      SKIPPED = %w[.git .bundle log tmp storage node_modules vendor coverage public].freeze
      SOURCE = /\.(rb|ru|rake|erb|haml|slim|builder|jbuilder|yml|yaml|gemspec|json)\z|\A(Gemfile|Rakefile)\z/

      def self.of(app)
        root = app.builtin ? File.join(app.dir, "lib", "arena", "app") : app.dir
        lock = app.app_lockfile
        Results::AppDigest.new(lock: File.file?(lock) ? Digest::SHA256.file(lock).hexdigest : nil, code: AppDigest.code(root)).freeze
      end

      # SHA-256 over the sorted source files' relative paths and contents.
      def self.code(root)
        files = []
        Find.find(root) do |path|
          name = File.basename(path)
          Find.prune if File.directory?(path) && path != root && AppDigest::SKIPPED.include?(name)
          files << path if File.file?(path) && name.match?(AppDigest::SOURCE)
        end
        digest = Digest::SHA256.new
        files.sort.each { |path| digest << path.delete_prefix(root) << "\0" << Digest::SHA256.file(path).hexdigest << "\n" }
        digest.hexdigest
      end
    end
  end
end
