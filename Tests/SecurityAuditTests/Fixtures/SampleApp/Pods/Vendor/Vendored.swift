let vendorURL = "http://vendor.backend.com"
