# frozen_string_literal: true

module Arena
  VERSION = "0.1.0"
end
