# frozen_string_literal: true

# Geminabox as the 2014 comparison served it (seed 004): its gem index page
# is the page under test. That page listed a company's gems (about 600 KB);
# here the index is filled once from the gems in the local RubyGems cache, so
# the page has real content. The index lives outside the repository, and a
# lock keeps forked workers that load this file at once from indexing twice.
require "geminabox"
require "tmpdir"
require "fileutils"

data = File.join(Dir.tmpdir, "arena-geminabox-#{Process.uid}")
FileUtils.mkdir_p(File.join(data, "gems"))
Geminabox.data = data
File.open(File.join(data, "seed.lock"), File::RDWR | File::CREAT) do |lock|
  lock.flock(File::LOCK_EX)
  unless File.exist?(File.join(data, "specs.4.8.gz"))
    Gem.path.flat_map { |dir| Dir[File.join(dir, "cache", "*.gem")] }.each { |gem| FileUtils.cp(gem, File.join(data, "gems")) }
    Geminabox::Server.reindex(:force_rebuild)
  end
end

run Geminabox::Server
