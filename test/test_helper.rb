# frozen_string_literal: true

$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "minitest/autorun"

module Arena
  module TestHelp
    def self.engine_path
      File.expand_path("../ext/arena_load/arena-load", __dir__)
    end
  end
end
